import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class MergeOperationTests: XCTestCase {
    func testBasePlusAddedMembersInOrder() throws {
        let output = try transform(
            #"{"merge": {"base": "/user", "add": {"devices": "/devices", "first": "/devices/0"}}}"#,
            on: #"{"user": {"name": "Ada", "age": 36}, "devices": [{"id": "d1"}], "other": 1}"#)
        assertJSON(output.value, #"{"name": "Ada", "age": 36, "devices": [{"id": "d1"}], "first": {"id": "d1"}}"#)
    }

    func testAddedMemberReplacesTheSameNameInPlace() throws {
        let output = try transform(
            #"{"merge": {"base": "/user", "add": {"name": "/nick"}}}"#,
            on: #"{"user": {"name": "Ada", "age": 36}, "nick": "ada"}"#)
        assertJSON(output.value, #"{"name": "ada", "age": 36}"#)
    }

    func testEmptyBaseIsTheWholeValueAndNullIsAValue() throws {
        let output = try transform(#"{"merge": {"base": "", "add": {"copy": "/devices"}}}"#, on: #"{"devices": null}"#)
        assertJSON(output.value, #"{"devices": null, "copy": null}"#)
    }

    func testBaseThatIsNotAnObject() throws {
        let error = try XCTUnwrap(
            runError(#"{"merge": {"base": "/user", "add": {"d": "/d"}}}"#, on: #"{"user": null, "d": 1}"#))
        XCTAssertEqual(error.code, "not-an-object")
        XCTAssertEqual(error.pointer, "/user")
        let whole = try XCTUnwrap(runError(#"{"merge": {"base": "", "add": {"d": "/0"}}}"#, on: "[1]"))
        XCTAssertEqual(whole.code, "not-an-object")
        XCTAssertEqual(whole.pointer, "")
    }

    func testPointerThatResolvesToNothing() throws {
        let add = try XCTUnwrap(
            runError(#"{"merge": {"base": "/user", "add": {"d": "/devices"}}}"#, on: #"{"user": {}}"#))
        XCTAssertEqual(add.code, "merge-missing")
        XCTAssertEqual(add.pointer, "/devices")
        let base = try XCTUnwrap(runError(#"{"merge": {"base": "/user", "add": {"d": "/d"}}}"#, on: #"{"d": 1}"#))
        XCTAssertEqual(base.code, "merge-missing")
        XCTAssertEqual(base.pointer, "/user")
    }

    func testConfigErrorsPointAtTheOption() {
        XCTAssertEqual(configError(#"{"merge": {"add": {"d": "/d"}}}"#)?.pointer, "/merge")
        XCTAssertEqual(configError(#"{"merge": {"base": "user", "add": {"d": "/d"}}}"#)?.pointer, "/merge/base")
        XCTAssertEqual(configError(#"{"merge": {"base": "/u"}}"#)?.pointer, "/merge")
        XCTAssertEqual(configError(#"{"merge": {"base": "/u", "add": {}}}"#)?.pointer, "/merge/add")
        XCTAssertEqual(configError(#"{"merge": {"base": "/u", "add": {"d": 3}}}"#)?.pointer, "/merge/add/d")
        XCTAssertEqual(
            configError(#"{"merge": {"base": "/u", "add": {"d": "/d"}, "deep": true}}"#)?.pointer, "/merge/deep")
    }

    func testExpandIsRefusedInsideNestedSteps() {
        let error = configError(#"{"each": [{"expand": {"key": "a"}}]}"#)
        XCTAssertEqual(error?.pointer, "/each/0/expand")
        XCTAssertEqual(error?.message, "expand is only allowed at the top level of a route's transform")
    }
}
