import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class RequireOperationTests: XCTestCase {
    func testPassesAnythingButNull() throws {
        assertJSON(try transform(#"{"require": "present"}"#, on: #"{"a": 1}"#).value, #"{"a": 1}"#)
        assertJSON(try transform(#"{"require": "present"}"#, on: "[]").value, "[]")
        assertJSON(try transform(#"{"require": "present"}"#, on: "false").value, "false")
    }

    func testNullIsNotFound() {
        XCTAssertThrowsError(try transform(#"{"require": "present"}"#, on: "null")) { error in
            XCTAssertEqual((error as? PipelineError)?.code, "not-found")
        }
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"require": "record"}"#)?.pointer, "/require")
        XCTAssertEqual(configError(#"{"require": {}}"#)?.pointer, "/require")
    }
}
