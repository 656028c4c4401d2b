import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class AtOperationTests: XCTestCase {
    func testWildcardsOverArraysAndObjects() throws {
        let input =
            #"{"objects": [{"devices": {"d1": {"on": "true"}, "d2": {"on": "false"}}}, {"devices": {"d3": {"on": "true"}}}]}"#
        let output = try transform(
            #"{"at": {"path": "/objects/*/devices", "do": [{"keyed-to-array": {}}, {"coerce": {"on": "boolean"}}]}}"#,
            on: input)
        assertJSON(
            output.value,
            #"{"objects": [{"devices": [{"objectId": "d1", "on": true}, {"objectId": "d2", "on": false}]}, {"devices": [{"objectId": "d3", "on": true}]}]}"#
        )
    }

    func testMissingPartsAreNotReached() throws {
        assertJSON(
            try transform(#"{"at": {"path": "/a/*/b", "do": [{"wrap": "w"}]}}"#, on: #"{"a": [{"b": 1}, {"c": 2}, 3]}"#)
                .value,
            #"{"a": [{"b": {"w": 1}}, {"c": 2}, 3]}"#)
        assertJSON(
            try transform(#"{"at": {"path": "/x/0", "do": [{"wrap": "w"}]}}"#, on: #"{"a": 1}"#).value, #"{"a": 1}"#)
    }

    func testIndexTokensAndEmptyPath() throws {
        assertJSON(
            try transform(#"{"at": {"path": "/1", "do": [{"wrap": "w"}]}}"#, on: "[1, 2]").value, #"[1, {"w": 2}]"#)
        assertJSON(try transform(#"{"at": {"path": "", "do": [{"wrap": "w"}]}}"#, on: "1").value, #"{"w": 1}"#)
    }

    func testErrorsAndDropsCarryTheReachedPath() throws {
        let error = try XCTUnwrap(
            runError(
                #"{"at": {"path": "/*/x", "do": [{"select": "/y"}]}}"#, on: #"{"p": {"x": {"y": 1}}, "q~": {"x": {}}}"#)
        )
        XCTAssertEqual(error.pointer, "/q~0/x/y")
        let output = try transform(
            #"{"at": {"path": "/users/*", "do": [{"coerce": {"age": "integer", "invalid": "drop"}}]}}"#,
            on: #"{"users": {"a": {"age": "1"}, "b": {"age": "old"}}}"#)
        assertJSON(output.value, #"{"users": {"a": {"age": 1}}}"#)
        XCTAssertEqual(output.dropped.map(\.pointer), ["/users/b"])
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"at": {"path": "objects", "do": []}}"#)?.pointer, "/at/path")
        XCTAssertEqual(configError(#"{"at": {"do": []}}"#)?.pointer, "/at")
        XCTAssertEqual(configError(#"{"at": {"path": "/a"}}"#)?.pointer, "/at")
        XCTAssertEqual(
            configError(#"{"at": {"path": "/a", "do": [{"sort": {"by": 1}}]}}"#)?.pointer, "/at/do/0/sort/by")
        XCTAssertEqual(configError(#"{"at": {"path": "/a", "do": [], "then": 1}}"#)?.pointer, "/at/then")
    }
}
