import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class KeyedToArrayOperationTests: XCTestCase {
    func testRecordsGetTheirMemberNameFirstInSourceOrder() throws {
        assertJSON(
            try transform(#"{"keyed-to-array": {}}"#, on: #"{"u2": {"name": "B"}, "u1": {"name": "A"}}"#).value,
            #"[{"objectId": "u2", "name": "B"}, {"objectId": "u1", "name": "A"}]"#)
    }

    func testNonObjectMembersBecomeKeyValuePairs() throws {
        assertJSON(
            try transform(#"{"keyed-to-array": {"key": "id", "value": "v"}}"#, on: #"{"a": true, "b": {"x": 1}}"#)
                .value,
            #"[{"id": "a", "v": true}, {"id": "b", "x": 1}]"#)
    }

    func testNullAndEmptyBecomeEmptyArray() throws {
        assertJSON(try transform(#"{"keyed-to-array": null}"#, on: "null").value, "[]")
        assertJSON(try transform(#"{"keyed-to-array": {}}"#, on: "{}").value, "[]")
    }

    func testFirebaseArrayWithHoles() throws {
        assertJSON(
            try transform(#"{"keyed-to-array": {}}"#, on: #"[null, {"n": 1}, null, {"n": 3}, 7]"#).value,
            #"[{"objectId": "1", "n": 1}, {"objectId": "3", "n": 3}, {"objectId": "4", "value": 7}]"#)
    }

    func testOrderByKeyComparesBytes() throws {
        assertJSON(
            try transform(#"{"keyed-to-array": {"order": "key"}}"#, on: #"{"b": 1, "B": 2, "a": 3, "é": 4}"#).value,
            #"[{"objectId": "B", "value": 2}, {"objectId": "a", "value": 3}, {"objectId": "b", "value": 1}, {"objectId": "é", "value": 4}]"#
        )
    }

    func testOrderByNumericKey() throws {
        assertJSON(
            try transform(
                #"{"keyed-to-array": {"order": "numeric-key", "key": "k"}}"#,
                on: #"{"10": 1, "x": 2, "9": 3, "-1": 4, "2.5": 5}"#
            ).value,
            #"[{"k": "-1", "value": 4}, {"k": "2.5", "value": 5}, {"k": "9", "value": 3}, {"k": "10", "value": 1}, {"k": "x", "value": 2}]"#
        )
    }

    func testExistingKeyFieldIsOverwrittenInPlaceByDefault() throws {
        assertJSON(
            try transform(#"{"keyed-to-array": {}}"#, on: #"{"u1": {"name": "A", "objectId": "stale"}}"#).value,
            #"[{"name": "A", "objectId": "u1"}]"#)
    }

    func testConflictKeepAndFail() throws {
        assertJSON(
            try transform(#"{"keyed-to-array": {"conflict": "keep"}}"#, on: #"{"u1": {"objectId": "mine"}}"#).value,
            #"[{"objectId": "mine"}]"#)
        let error = try XCTUnwrap(
            runError(#"{"keyed-to-array": {"conflict": "fail"}}"#, on: #"{"a/b": {"objectId": "x"}}"#))
        XCTAssertEqual(error.code, "key-conflict")
        XCTAssertEqual(error.pointer, "/a~1b/objectId")
    }

    func testScalarIsNotAnObject() {
        XCTAssertEqual(runError(#"{"keyed-to-array": {}}"#, on: "3")?.code, "not-an-object")
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"keyed-to-array": {"order": "random"}}"#)?.pointer, "/keyed-to-array/order")
        XCTAssertEqual(configError(#"{"keyed-to-array": {"key": 1}}"#)?.pointer, "/keyed-to-array/key")
        XCTAssertEqual(configError(#"{"keyed-to-array": {"keys": "id"}}"#)?.pointer, "/keyed-to-array/keys")
        XCTAssertEqual(configError(#"{"keyed-to-array": {"conflict": "merge"}}"#)?.pointer, "/keyed-to-array/conflict")
        XCTAssertEqual(configError(#"{"keyed-to-array": "id"}"#)?.pointer, "/keyed-to-array")
        XCTAssertEqual(
            configError(#"{"keyed-to-array": {"key": "v", "value": "v"}}"#)?.pointer, "/keyed-to-array/value")
        XCTAssertEqual(configError(#"{"keyed-to-array": {"key": "value"}}"#)?.pointer, "/keyed-to-array/key")
    }
}
