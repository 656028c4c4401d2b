import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class KeepOperationTests: XCTestCase {
    func testKeepsOnlyListedFieldsInRecordOrder() throws {
        assertJSON(
            try transform(#"{"keep": ["c", "a"]}"#, on: #"{"a": 1, "b": 2, "c": 3}"#).value, #"{"a": 1, "c": 3}"#)
    }

    func testArrayOfRecords() throws {
        assertJSON(try transform(#"{"keep": "id"}"#, on: #"[{"id": 1, "x": 2}, {"y": 3}]"#).value, #"[{"id": 1}, {}]"#)
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"keep": [""]}"#)?.pointer, "/keep/0")
        XCTAssertEqual(configError(#"{"keep": null}"#)?.pointer, "/keep")
    }
}
