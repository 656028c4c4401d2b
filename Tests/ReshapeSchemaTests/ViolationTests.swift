import ReshapeJSON
import ReshapeSchema
import XCTest

/// What `validate` reports: instance pointer, keyword, schema pointer and a reason a person can act on.
final class ViolationTests: XCTestCase {
    private func violations(_ schema: String, _ instance: String, maxErrors: Int = 100) throws -> [SchemaViolation] {
        try Validator(schema: JSON(parsing: schema)).validate(JSON(parsing: instance), maxErrors: maxErrors)
    }

    func testMinimumDescription() throws {
        let found = try violations(#"{"properties":{"age":{"minimum":0}}}"#, #"{"age":-3}"#)
        XCTAssertEqual(
            found,
            [
                SchemaViolation(
                    instancePointer: "/age", keyword: "minimum",
                    schemaPointer: "/properties/age/minimum", reason: "-3 is less than 0")
            ])
        XCTAssertEqual(found.first?.description, "/age: minimum: -3 is less than 0")
    }

    func testEveryFailureIsReportedWithItsOwnPointer() throws {
        let schema =
            #"{"type":"object","required":["id"],"properties":{"tags":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}"#
        let found = try violations(schema, #"{"tags":["a",2,"c",true],"extra":1}"#)
        XCTAssertEqual(found.map(\.keyword), ["required", "type", "type", "additionalProperties"])
        XCTAssertEqual(found.map(\.instancePointer), ["", "/tags/1", "/tags/3", "/extra"])
        XCTAssertEqual(found[0].reason, #"missing property "id""#)
        XCTAssertEqual(found[1].reason, "expected string, got integer")
        XCTAssertEqual(found[3].reason, #"property "extra" is not allowed"#)
    }

    func testMaxErrorsCapsTheList() throws {
        let found = try violations(#"{"items":{"type":"string"}}"#, "[1,2,3,4,5]", maxErrors: 2)
        XCTAssertEqual(found.count, 2)
    }

    func testPointerTokensAreEscaped() throws {
        let found = try violations(#"{"additionalProperties":{"type":"integer"}}"#, #"{"a/b~c":"x"}"#)
        XCTAssertEqual(found.map(\.instancePointer), ["/a~1b~0c"])
    }

    func testUnevaluatedPropertiesNamesTheProperty() throws {
        let found = try violations(
            #"{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}"#, #"{"a":1,"b":2}"#)
        XCTAssertEqual(found.map(\.keyword), ["unevaluatedProperties"])
        XCTAssertEqual(found.map(\.instancePointer), ["/b"])
    }

    func testIsValidAgreesWithValidate() throws {
        let validator = try Validator(schema: JSON(parsing: #"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#))
        for (text, expected) in [("1", true), ("2.5", true), ("3", false), ("\"x\"", true)] {
            let instance = try JSON(parsing: text)
            XCTAssertEqual(validator.isValid(instance), expected, text)
            XCTAssertEqual(validator.validate(instance).isEmpty, expected, text)
        }
    }

    func testBadSchemasThrow() throws {
        XCTAssertThrowsError(try Validator(schema: JSON(parsing: #"{"minLength":-1}"#))) { error in
            XCTAssertEqual((error as! SchemaError).schemaPointer, "/minLength")
        }
        XCTAssertThrowsError(try Validator(schema: JSON(parsing: ##"{"$ref":"#/$defs/missing"}"##)))
        XCTAssertThrowsError(try Validator(schema: JSON(parsing: #"{"$ref":"http://example.com/x.json"}"#)))
        XCTAssertThrowsError(try Validator(schema: JSON(parsing: "3")))
    }
}

/// Recursion: a schema that never consumes the instance is stopped; deep data under a
/// recursive type is not.
final class RecursionTests: XCTestCase {
    func testRefCycleThatNeverConsumesTheInstanceIsAViolationNotACrash() throws {
        let validator = try Validator(
            schema: JSON(parsing: ##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##))
        XCTAssertFalse(validator.isValid(.null))
        XCTAssertTrue(validator.validate(.null).first?.reason.contains("cycle") ?? false)
    }

    func testDeeplyNestedDataUnderARecursiveSchemaIsValid() throws {
        let validator = try Validator(schema: JSON(parsing: ##"{"type":"array","items":{"$ref":"#"}}"##))
        var value = JSON.array([])
        for _ in 0..<400 { value = .array([value]) }
        XCTAssertTrue(validator.isValid(value))
        XCTAssertTrue(validator.validate(value).isEmpty)
        XCTAssertFalse(validator.isValid(.array([value, .number(JSONNumber(1))])))
    }
}
