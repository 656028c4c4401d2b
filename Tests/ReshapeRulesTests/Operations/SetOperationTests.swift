import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class SetOperationTests: XCTestCase {
    func testSetsLiteralsAndTemplates() throws {
        let output = try transform(
            #"{"set": {"objectId": "{id}", "path": "/u/{id}/{{raw}}", "n": 3, "kind": "user"}}"#,
            on: #"{"objectId": "old", "name": "A"}"#, parameters: ["id": "u1"])
        assertJSON(output.value, #"{"objectId": "u1", "name": "A", "path": "/u/u1/{raw}", "n": 3, "kind": "user"}"#)
    }

    func testArrayOfRecords() throws {
        assertJSON(
            try transform(#"{"set": {"x": null}}"#, on: #"[{}, {"x": 1}]"#).value, #"[{"x": null}, {"x": null}]"#)
    }

    func testUnknownParameterIsACompileError() throws {
        let error = try XCTUnwrap(configError(#"{"set": {"a": "1", "objectId": "{uid}"}}"#, parameters: ["id"]))
        XCTAssertEqual(error.pointer, "/set/objectId")
        XCTAssertTrue(error.message.contains("{uid}") && error.message.contains("{id}"), error.message)
    }

    func testMalformedTemplates() {
        XCTAssertEqual(configError(#"{"set": {"a": "{id"}}"#, parameters: ["id"])?.pointer, "/set/a")
        XCTAssertEqual(configError(#"{"set": {"a": "{}"}}"#)?.pointer, "/set/a")
        XCTAssertEqual(configError(#"{"set": {}}"#)?.pointer, "/set")
    }

    func testNotARecord() {
        XCTAssertEqual(runError(#"{"set": {"a": 1}}"#, on: #""s""#)?.code, "not-an-object")
    }
}
