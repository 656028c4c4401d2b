import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class CoerceOperationTests: XCTestCase {
    func testConvertsEachTarget() throws {
        let output = try transform(
            #"{"coerce": {"a": "integer", "b": "number", "c": "boolean", "d": "string", "e": "string", "f": "integer"}}"#,
            on: #"{"a": "42", "b": "4.5", "c": "false", "d": 1.50, "e": true, "f": 4.0, "g": "7"}"#)
        assertJSON(output.value, #"{"a": 42, "b": 4.5, "c": false, "d": "1.50", "e": "true", "f": 4, "g": "7"}"#)
    }

    func testAbsentAndNullFieldsAreLeftAlone() throws {
        assertJSON(
            try transform(#"{"coerce": {"a": "integer", "b": "boolean"}}"#, on: #"{"b": null}"#).value, #"{"b": null}"#)
    }

    func testFailureIsCoerceFailedByDefault() throws {
        let error = try XCTUnwrap(runError(#"{"coerce": {"age": "integer"}}"#, on: #"[{"age": "1"}, {"age": "4.5"}]"#))
        XCTAssertEqual(error.code, "coerce-failed")
        XCTAssertEqual(error.pointer, "/1/age")
    }

    func testUnconvertibleValues() {
        XCTAssertNil(CoerceOperation.convert(json(#"" 42""#), to: .integer))
        XCTAssertNil(CoerceOperation.convert(json(#""042""#), to: .integer))
        XCTAssertNil(CoerceOperation.convert(json(#""yes""#), to: .boolean))
        XCTAssertNil(CoerceOperation.convert(json("1"), to: .boolean))
        XCTAssertNil(CoerceOperation.convert(json("[]"), to: .string))
        XCTAssertNil(CoerceOperation.convert(json("true"), to: .number))
    }

    func testDropRemovesAndRecordsTheElement() throws {
        let output = try transform(
            #"{"coerce": {"age": "integer", "invalid": "drop"}}"#, on: #"[{"age": "x"}, {"age": "2"}]"#)
        assertJSON(output.value, #"[{"age": 2}]"#)
        XCTAssertEqual(
            output.dropped,
            [DroppedElement(pointer: "/0", type: "coerce", reason: #"/age: cannot convert the string "x" to integer"#)])
    }

    func testDropOfASingleRecordLeavesNull() throws {
        let output = try transform(#"{"coerce": {"age": "integer", "invalid": "drop"}}"#, on: #"{"age": "x"}"#)
        assertJSON(output.value, "null")
        XCTAssertEqual(output.dropped.map(\.pointer), [""])
    }

    func testKeepLeavesTheValueAndRecordsNothing() throws {
        let output = try transform(#"{"coerce": {"age": "integer", "invalid": "keep"}}"#, on: #"[{"age": "x"}]"#)
        assertJSON(output.value, #"[{"age": "x"}]"#)
        XCTAssertTrue(output.dropped.isEmpty)
    }

    func testAFieldNamedInvalidIsStillAField() throws {
        assertJSON(
            try transform(#"{"coerce": {"invalid": "integer"}}"#, on: #"{"invalid": "3"}"#).value, #"{"invalid": 3}"#)
    }

    func testConfigErrors() {
        XCTAssertEqual(configError(#"{"coerce": {"age": "int"}}"#)?.pointer, "/coerce/age")
        XCTAssertEqual(configError(#"{"coerce": {"age": 1}}"#)?.pointer, "/coerce/age")
        XCTAssertEqual(configError(#"{"coerce": {"invalid": "drop"}}"#)?.pointer, "/coerce")
        XCTAssertEqual(configError(#"{"coerce": ["age"]}"#)?.pointer, "/coerce")
    }
}
