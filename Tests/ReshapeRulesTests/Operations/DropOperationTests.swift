import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class DropOperationTests: XCTestCase {
    func testRemovesListedFields() throws {
        assertJSON(try transform(#"{"drop": ["a", "c"]}"#, on: #"{"a": 1, "b": 2, "c": 3}"#).value, #"{"b": 2}"#)
    }

    func testSingleNameAndArrays() throws {
        assertJSON(
            try transform(#"{"drop": "secret"}"#, on: #"[{"secret": 1, "x": 2}, {"x": 3}]"#).value,
            #"[{"x": 2}, {"x": 3}]"#)
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"drop": ["a", 2]}"#)?.pointer, "/drop/1")
        XCTAssertEqual(configError(#"{"drop": []}"#)?.pointer, "/drop")
        XCTAssertEqual(configError(#"{"drop": {"a": 1}}"#)?.pointer, "/drop")
    }
}
