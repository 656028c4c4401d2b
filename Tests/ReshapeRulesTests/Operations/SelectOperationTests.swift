import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class SelectOperationTests: XCTestCase {
    func testSelectsNestedValue() throws {
        assertJSON(
            try transform(#"{"select": "/data/items"}"#, on: #"{"data": {"items": [1, 2]}, "meta": 1}"#).value, "[1, 2]"
        )
    }

    func testSelectsArrayElementAndEscapedNames() throws {
        assertJSON(try transform(#"{"select": "/a~1b/1"}"#, on: #"{"a/b": ["x", "y"]}"#).value, #""y""#)
    }

    func testEmptyPointerSelectsEverything() throws {
        assertJSON(try transform(#"{"select": ""}"#, on: #"{"a": 1}"#).value, #"{"a": 1}"#)
    }

    func testMissingIsSelectMissingWithPointer() throws {
        let error = try XCTUnwrap(runError(#"{"select": "/data/items"}"#, on: #"{"data": {}}"#))
        XCTAssertEqual(error.code, "select-missing")
        XCTAssertEqual(error.pointer, "/data/items")
    }

    func testNullValueIsSelectedNotMissing() throws {
        assertJSON(try transform(#"{"select": "/a"}"#, on: #"{"a": null}"#).value, "null")
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"select": "data"}"#)?.pointer, "/select")
        XCTAssertEqual(configError(#"{"select": "/a~2"}"#)?.pointer, "/select")
        XCTAssertEqual(configError(#"{"select": 3}"#)?.pointer, "/select")
    }
}
