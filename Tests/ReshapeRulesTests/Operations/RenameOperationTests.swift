import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class RenameOperationTests: XCTestCase {
    func testRenamesInPlaceKeepingPosition() throws {
        assertJSON(
            try transform(#"{"rename": {"n": "name"}}"#, on: #"{"id": 1, "n": "A", "z": 0}"#).value,
            #"{"id": 1, "name": "A", "z": 0}"#)
    }

    func testAppliesToEveryRecordOfAnArray() throws {
        assertJSON(
            try transform(#"{"rename": {"n": "name"}}"#, on: #"[{"n": "A"}, {"x": 1}]"#).value,
            #"[{"name": "A"}, {"x": 1}]"#)
    }

    func testReplacesAnExistingTargetField() throws {
        assertJSON(try transform(#"{"rename": {"new": "old"}}"#, on: #"{"old": 1, "new": 2}"#).value, #"{"old": 2}"#)
    }

    func testNonRecordIsNotAnObject() throws {
        let error = try XCTUnwrap(runError(#"{"rename": {"a": "b"}}"#, on: #"[{"a": 1}, 5]"#))
        XCTAssertEqual(error.code, "not-an-object")
        XCTAssertEqual(error.pointer, "/1")
        XCTAssertEqual(runError(#"{"rename": {"a": "b"}}"#, on: "7")?.code, "not-an-object")
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"rename": {"a": 1}}"#)?.pointer, "/rename/a")
        XCTAssertEqual(configError(#"{"rename": {}}"#)?.pointer, "/rename")
        XCTAssertEqual(configError(#"{"rename": ["a"]}"#)?.pointer, "/rename")
    }
}
