import ReshapeJSON
import ReshapeSchema
import XCTest

@testable import ReshapeRules

final class ValidateOperationTests: XCTestCase {
    /// `User` needs a non-empty name; `Nothing` accepts no value; `Anything` accepts every value.
    private func context() throws -> OperationCompileContext {
        let user = json(
            #"{"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}}}"#)
        let types = try SchemaSet(types: [("User", user), ("Nothing", .bool(false)), ("Anything", .bool(true))])
        return OperationCompileContext(types: types)
    }

    func testValidArrayPassesUnchanged() throws {
        let ctx = try context()
        let output = try transform(#"{"validate": "Anything"}"#, on: "[1, {}, null]", context: ctx)
        assertJSON(output.value, "[1, {}, null]")
        XCTAssertTrue(output.dropped.isEmpty)
    }

    func testFailReportsAbsolutePointersOfEveryInvalidElement() throws {
        let ctx = try context()
        let error = try XCTUnwrap(runError(#"{"validate": {"type": "Nothing"}}"#, on: "[1, 2]", context: ctx))
        XCTAssertEqual(error.code, "validation-failed")
        XCTAssertEqual(error.pointer, "/0")
        XCTAssertEqual(error.errors.map(\.pointer), ["/0", "/1"])
        XCTAssertEqual(error.errors.first?.keyword, "false")
    }

    func testDropRemovesEveryInvalidElementAndRecordsIt() throws {
        let ctx = try context()
        let output = try transform(
            #"{"validate": {"type": "Nothing", "invalid": "drop"}}"#, on: "[1, 2, 3]", context: ctx)
        assertJSON(output.value, "[]")
        XCTAssertEqual(output.dropped.map(\.pointer), ["/0", "/1", "/2"])
        XCTAssertEqual(output.dropped.first?.type, "Nothing")
        // The reason starts with the bad value's pointer inside the element and the keyword.
        XCTAssertTrue(
            output.dropped.first?.reason.hasPrefix("(root): false: ") ?? false, output.dropped.first?.reason ?? "")
    }

    func testKeepLeavesInvalidElementsAndRecordsNothing() throws {
        let ctx = try context()
        let output = try transform(#"{"validate": {"type": "Nothing", "invalid": "keep"}}"#, on: "[1]", context: ctx)
        assertJSON(output.value, "[1]")
        XCTAssertTrue(output.dropped.isEmpty)
    }

    func testNonArrayIsValidatedWhole() throws {
        let ctx = try context()
        XCTAssertEqual(runError(#"{"validate": "Nothing"}"#, on: #"{"a": 1}"#, context: ctx)?.pointer, "")
        let dropped = try transform(
            #"{"validate": {"type": "Nothing", "invalid": "drop"}}"#, on: #"{"a": 1}"#, context: ctx)
        assertJSON(dropped.value, "null")
        XCTAssertEqual(dropped.dropped.map(\.pointer), [""])
    }

    func testDropInsideEachRemovesTheElement() throws {
        let ctx = try context()
        let output = try transform(
            #"{"each": [{"validate": {"type": "Nothing", "invalid": "drop"}}]}"#, on: "[[1], 2]", context: ctx)
        // The inner array is validated element by element; the number is dropped whole and removed by `each`.
        assertJSON(output.value, "[[]]")
        XCTAssertEqual(output.dropped.map(\.pointer), ["/0/0", "/1"])
    }

    func testMixedElementsWithARealSchema() throws {
        let ctx = try context()
        let input = #"[{"name": "A"}, {"name": ""}, {"name": "C"}, {}]"#
        try XCTSkipIf(
            ctx.types?.validator(named: "User")?.isValid(json("{}")) ?? true,
            "needs ReshapeSchema's validation engine (the committed API stub accepts everything)")
        let output = try transform(#"{"validate": {"type": "User", "invalid": "drop"}}"#, on: input, context: ctx)
        assertJSON(output.value, #"[{"name": "A"}, {"name": "C"}]"#)
        XCTAssertEqual(output.dropped.map(\.pointer), ["/1", "/3"])
        XCTAssertTrue(
            output.dropped.first?.reason.hasPrefix("/name: minLength") ?? false, output.dropped.first?.reason ?? "")
        let error = try XCTUnwrap(runError(#"{"validate": "User"}"#, on: input, context: ctx))
        XCTAssertEqual(error.errors.map(\.pointer), ["/1/name", "/3"])
    }

    func testConfigErrors() throws {
        let ctx = try context()
        XCTAssertEqual(configError(#"{"validate": "User"}"#)?.pointer, "/validate")
        XCTAssertEqual(configError(#"{"validate": {"type": "Usr"}}"#, context: ctx)?.pointer, "/validate/type")
        XCTAssertEqual(
            configError(#"{"validate": {"type": "User", "invalid": "skip"}}"#, context: ctx)?.pointer,
            "/validate/invalid")
        XCTAssertEqual(configError(#"{"validate": {}}"#, context: ctx)?.pointer, "/validate")
        XCTAssertEqual(configError(#"{"validate": {"type": "User", "on": 1}}"#, context: ctx)?.pointer, "/validate/on")
    }
}
