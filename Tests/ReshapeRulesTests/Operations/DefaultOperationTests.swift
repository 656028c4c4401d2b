import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class DefaultOperationTests: XCTestCase {
    func testFillsAbsentAndNullOnly() throws {
        assertJSON(
            try transform(#"{"default": {"age": 0, "tags": [], "name": "?"}}"#, on: #"{"name": "A", "age": null}"#)
                .value,
            #"{"name": "A", "age": 0, "tags": []}"#)
    }

    func testArrayOfRecords() throws {
        assertJSON(
            try transform(#"{"default": {"active": true}}"#, on: #"[{"active": false}, {}]"#).value,
            #"[{"active": false}, {"active": true}]"#)
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"default": {}}"#)?.pointer, "/default")
        XCTAssertEqual(configError(#"{"default": "x"}"#)?.pointer, "/default")
    }
}
