import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class WrapOperationTests: XCTestCase {
    func testWrapsAnyValue() throws {
        assertJSON(try transform(#"{"wrap": "objects"}"#, on: "[1, 2]").value, #"{"objects": [1, 2]}"#)
        assertJSON(try transform(#"{"wrap": "v"}"#, on: "null").value, #"{"v": null}"#)
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"wrap": ""}"#)?.pointer, "/wrap")
        XCTAssertEqual(configError(#"{"wrap": {"a": 1}}"#)?.pointer, "/wrap")
    }
}
