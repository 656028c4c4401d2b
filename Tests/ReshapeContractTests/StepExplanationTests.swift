import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeContract

/// What `reshape explain` reports for each step, from a traced run.
final class StepExplanationTests: XCTestCase {
    private func json(_ text: String) -> JSON { try! JSON.parse(Array(text.utf8)) }

    func testCoercionsLineUpAfterDroppedRecords() throws {
        let pipeline = try OperationCatalog.compile(
            steps: json(#"[{"coerce": {"age": "integer", "n": "string", "invalid": "drop"}}]"#),
            context: OperationCompileContext())
        let input = json(#"[{"age": "1"}, {"age": "x"}, {"age": 2, "n": 3}, {"age": "4.0"}]"#)
        var traces: [StepTrace] = []
        _ = try pipeline.run(input, observe: { traces.append($0) })
        let steps = StepExplanation.steps(traces, input: input)
        XCTAssertEqual(steps.map(\.name), ["coerce"])
        XCTAssertEqual(steps[0].dropped.map(\.pointer), ["/1"])
        XCTAssertEqual(
            steps[0].coerced,
            [
                .init(pointer: "/0/age", from: .string("1"), to: json("1")),
                .init(pointer: "/2/n", from: json("3"), to: .string("3")),
                .init(pointer: "/3/age", from: .string("4.0"), to: json("4")),
            ])
    }

    func testValueLinesAreCutToTheirWidth() {
        let value = json(
            #"{"a": [1, 2, 3], "b": "a long string that goes on and on and on and on and on and on and on"}"#)
        XCTAssertEqual(ValueSummary.line(json("[1, 2]")), "array(2) [1, 2]")
        let line = ValueSummary.line(value, width: 40)
        XCTAssertEqual(line, #"object(2) {"a": [1, 2, 3], "b": "a long…"#)
        XCTAssertEqual(line.count, 40)
        XCTAssertEqual(ValueSummary.compact(.string("x")), #""x""#)
    }
}
