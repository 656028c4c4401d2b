import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class EachOperationTests: XCTestCase {
    func testAppliesStepsToEveryElement() throws {
        assertJSON(
            try transform(#"{"each": [{"select": "/a"}, {"wrap": "v"}]}"#, on: #"[{"a": 1}, {"a": 2}]"#).value,
            #"[{"v": 1}, {"v": 2}]"#)
    }

    func testErrorPointerIsPrefixedWithTheIndex() throws {
        let error = try XCTUnwrap(runError(#"{"each": [{"select": "/a/b"}]}"#, on: #"[{"a": {"b": 1}}, {"a": {}}]"#))
        XCTAssertEqual(error.code, "select-missing")
        XCTAssertEqual(error.pointer, "/1/a/b")
    }

    func testDroppedElementsAreRemovedAndReportedWithTheirIndex() throws {
        let output = try transform(
            #"{"each": [{"coerce": {"age": "integer", "invalid": "drop"}}]}"#,
            on: #"[{"age": "1"}, {"age": "x"}, {"age": "3"}]"#)
        assertJSON(output.value, #"[{"age": 1}, {"age": 3}]"#)
        XCTAssertEqual(output.dropped.map(\.pointer), ["/1"])
    }

    func testNestedEachPointers() throws {
        let output = try transform(
            #"{"each": [{"each": [{"coerce": {"n": "number", "invalid": "drop"}}]}]}"#,
            on: #"[[{"n": "1"}], [{"n": "1"}, {"n": "?"}]]"#)
        assertJSON(output.value, #"[[{"n": 1}], [{"n": 1}]]"#)
        XCTAssertEqual(output.dropped.map(\.pointer), ["/1/1"])
    }

    func testNotAnArray() {
        XCTAssertEqual(runError(#"{"each": []}"#, on: "{}")?.code, "not-an-array")
    }

    func testConfigErrorsPointIntoTheBody() {
        XCTAssertEqual(configError(#"{"each": [{"wrap": "x"}, {"rename": {"a": 1}}]}"#)?.pointer, "/each/1/rename/a")
        XCTAssertEqual(configError(#"{"each": [{"nope": 1}]}"#)?.pointer, "/each/0/nope")
        XCTAssertEqual(configError(#"{"each": {"wrap": "x"}}"#)?.pointer, "/each")
    }
}
