import ReshapeJSON
import ReshapeSchema
import XCTest

@testable import ReshapeRules

/// The traced run (`reshape explain`): one trace per step, the same on the tape and the tree,
/// and the same output as the untraced run.
final class PipelineTraceTests: XCTestCase {
    private func pipeline() throws -> Pipeline {
        let user = json(
            #"{"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer"}}}"#
        )
        let context = OperationCompileContext(types: try SchemaSet(types: [("User", user)]))
        return try OperationCatalog.compile(
            steps: json(
                #"""
                [{"keyed-to-array": {"key": "objectId", "order": "key"}}, {"coerce": {"age": "integer", "invalid": "drop"}},
                 {"validate": {"type": "User", "invalid": "drop"}}, {"sort": {"by": "name"}}, {"wrap": "objects"}]
                """#), context: context)
    }

    private let input =
        #"{"u3": {"name": "Cy", "age": "x"}, "u1": {"name": "Ada", "age": "36"}, "u2": {"name": ""}, "u4": {"name": "Bo"}}"#

    func testTapeAndTreeTracesAgree() throws {
        let pipeline = try pipeline()
        var onTape: [StepTrace] = []
        var onTree: [StepTrace] = []
        let tapeOutput = try pipeline.run(try JSONTape.parse(Array(input.utf8)), observe: { onTape.append($0) })
        let treeOutput = try pipeline.run(json(input), observe: { onTree.append($0) })
        XCTAssertEqual(onTape.map(\.name), ["keyed-to-array", "coerce", "validate", "sort", "wrap"])
        XCTAssertEqual(onTape.map(\.name), onTree.map(\.name))
        XCTAssertEqual(onTape.map(\.value), onTree.map(\.value))
        XCTAssertEqual(onTape.map(\.dropped), onTree.map(\.dropped))
        XCTAssertEqual(onTape[0].argument, json(#"{"key": "objectId", "order": "key"}"#))
        XCTAssertEqual(onTape[1].dropped.map(\.pointer), ["/2"])
        XCTAssertEqual(onTape[2].dropped.map(\.pointer), ["/1"])
        XCTAssertEqual(onTape.last?.value, tapeOutput.value)
        XCTAssertEqual(tapeOutput.value, treeOutput.value)
        XCTAssertEqual(tapeOutput.dropped, treeOutput.dropped)
    }

    func testWithoutAnObserverTheRunIsTheUntracedOne() throws {
        let pipeline = try pipeline()
        let traced = try pipeline.run(try JSONTape.parse(Array(input.utf8)), observe: nil)
        let plain = try pipeline.run(try JSONTape.parse(Array(input.utf8)))
        XCTAssertEqual(traced.serialized(), plain.serialized())
        XCTAssertEqual(traced.dropped, plain.dropped)
    }

    func testStepsBuiltInCodeAreNamedAfterTheirType() {
        XCTAssertEqual(Pipeline.operationName(KeyedToArrayOperation(keyField: "id")), "keyed-to-array")
        XCTAssertEqual(Pipeline(steps: [WrapOperation(field: "x")], written: []).written, [])
    }
}
