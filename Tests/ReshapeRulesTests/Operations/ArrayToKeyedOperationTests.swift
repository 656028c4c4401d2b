import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class ArrayToKeyedOperationTests: XCTestCase {
    func testInverseOfKeyedToArray() throws {
        let original = #"{"u2": {"name": "B"}, "u1": {"name": "A"}}"#
        let pipeline = try OperationCatalog.compile(
            steps: json(#"[{"keyed-to-array": {}}, {"array-to-keyed": {}}]"#),
            context: OperationCompileContext())
        assertJSON(try pipeline.run(json(original)).value, original)
    }

    func testNumberKeysUseTheirTextAndKeepKey() throws {
        assertJSON(
            try transform(
                #"{"array-to-keyed": {"key": "id", "keep-key": true}}"#, on: #"[{"id": 10, "a": 1}, {"id": "x"}]"#
            ).value,
            #"{"10": {"id": 10, "a": 1}, "x": {"id": "x"}}"#)
    }

    func testNullBecomesEmptyObject() throws {
        assertJSON(try transform(#"{"array-to-keyed": {}}"#, on: "null").value, "{}")
    }

    func testDuplicateKey() throws {
        let error = try XCTUnwrap(
            runError(#"{"array-to-keyed": {}}"#, on: #"[{"objectId": "a"}, {"objectId": "b"}, {"objectId": "a"}]"#))
        XCTAssertEqual(error.code, "duplicate-key")
        XCTAssertEqual(error.pointer, "/2/objectId")
    }

    func testMissingAndInvalidKeysAndBadElements() {
        XCTAssertEqual(runError(#"{"array-to-keyed": {}}"#, on: #"[{"x": 1}]"#)?.code, "missing-key")
        let invalid = runError(#"{"array-to-keyed": {}}"#, on: #"[{"objectId": "a"}, {"objectId": true}]"#)
        XCTAssertEqual(invalid?.code, "invalid-key")
        XCTAssertEqual(invalid?.pointer, "/1/objectId")
        XCTAssertEqual(runError(#"{"array-to-keyed": {}}"#, on: "[1]")?.pointer, "/0")
        XCTAssertEqual(runError(#"{"array-to-keyed": {}}"#, on: "{}")?.code, "not-an-array")
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"array-to-keyed": {"keep-key": "yes"}}"#)?.pointer, "/array-to-keyed/keep-key")
        XCTAssertEqual(configError(#"{"array-to-keyed": {"key": ""}}"#)?.pointer, "/array-to-keyed/key")
    }
}
