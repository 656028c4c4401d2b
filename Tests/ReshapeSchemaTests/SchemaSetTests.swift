import ReshapeJSON
import ReshapeSchema
import XCTest

/// Rule-file types: refs by bare name and by `#/types/Name`, and compile errors that name
/// the type and pointer.
final class SchemaSetTests: XCTestCase {
    private func json(_ text: String) throws -> JSON { try JSON(parsing: text) }

    private func userAndAddress(userRef: String) throws -> SchemaSet {
        try SchemaSet(types: [
            (
                "User",
                json(
                    #"{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"address":{"$ref":"\#(userRef)"}}}"#
                )
            ),
            ("Address", json(#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#)),
        ])
    }

    func testRefByBareTypeName() throws {
        let user = try XCTUnwrap(userAndAddress(userRef: "Address").validator(named: "User"))
        XCTAssertTrue(user.isValid(try json(#"{"name":"Ann","address":{"city":"Oslo"}}"#)))
        XCTAssertFalse(user.isValid(try json(#"{"name":"Ann","address":{"city":7}}"#)))
        XCTAssertFalse(user.isValid(try json(#"{"name":"Ann","address":{}}"#)))
    }

    func testRefByTypesPointer() throws {
        let user = try XCTUnwrap(userAndAddress(userRef: "#/types/Address").validator(named: "User"))
        XCTAssertTrue(user.isValid(try json(#"{"name":"Ann","address":{"city":"Oslo"}}"#)))
        let violations = user.validate(try json(#"{"name":"Ann","address":{"city":7}}"#))
        XCTAssertEqual(violations.map(\.instancePointer), ["/address/city"])
        XCTAssertEqual(violations.first?.keyword, "type")
        XCTAssertEqual(violations.first?.schemaPointer, "/types/Address/properties/city/type")
    }

    func testUnknownTypeNameIsASchemaErrorNamingThePointer() throws {
        XCTAssertThrowsError(try userAndAddress(userRef: "Adress")) { error in
            let error = error as! SchemaError
            XCTAssertEqual(error.typeName, "User")
            XCTAssertEqual(error.schemaPointer, "/properties/address/$ref")
            XCTAssertTrue(error.message.contains("Adress"), error.message)
            XCTAssertTrue(error.description.hasPrefix("type User at /properties/address/$ref:"), error.description)
        }
        XCTAssertThrowsError(try userAndAddress(userRef: "#/types/Adress")) { error in
            XCTAssertEqual((error as! SchemaError).schemaPointer, "/properties/address/$ref")
        }
    }

    func testPatternThatDoesNotCompileIsASchemaError() throws {
        XCTAssertThrowsError(try SchemaSet(types: [("Code", json(#"{"type":"string","pattern":"([a-z]"}"#))])) {
            error in
            let error = error as! SchemaError
            XCTAssertEqual(error.typeName, "Code")
            XCTAssertEqual(error.schemaPointer, "/pattern")
        }
    }

    func testRecursiveTypesAndUnknownValidatorName() throws {
        let set = try SchemaSet(types: [
            (
                "Node",
                json(
                    #"{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"Node"}}},"additionalProperties":false}"#
                )
            )
        ])
        let node = try XCTUnwrap(set.validator(named: "Node"))
        XCTAssertTrue(node.isValid(try json(#"{"children":[{"children":[]},{}]}"#)))
        XCTAssertFalse(node.isValid(try json(#"{"children":[{"children":[{"x":1}]}]}"#)))
        XCTAssertNil(set.validator(named: "Missing"))
    }

    func testFormatAnnotatesUnlessTheTypeAssertsIt() throws {
        let set = try SchemaSet(types: [
            ("Loose", json(#"{"type":"string","format":"date"}"#)),
            ("Strict", json(#"{"type":"string","format":"date","x-assert-format":true}"#)),
        ])
        let notADate = JSON.string("2024-02-30")
        XCTAssertTrue(try XCTUnwrap(set.validator(named: "Loose")).isValid(notADate))
        XCTAssertFalse(try XCTUnwrap(set.validator(named: "Strict")).isValid(notADate))
        XCTAssertTrue(try XCTUnwrap(set.validator(named: "Strict")).isValid(.string("2024-02-29")))
    }

    func testRefToAPartOfAType() throws {
        let set = try SchemaSet(types: [
            ("Address", json(#"{"type":"object","properties":{"city":{"type":"string","minLength":2}}}"#)),
            ("City", json(##"{"$ref":"Address#/properties/city"}"##)),
        ])
        let city = try XCTUnwrap(set.validator(named: "City"))
        XCTAssertTrue(city.isValid(.string("Oslo")))
        XCTAssertFalse(city.isValid(.string("O")))
    }

    func testOneValidatorSharedAcrossThreads() throws {
        let set = try userAndAddress(userRef: "Address")
        let user = try XCTUnwrap(set.validator(named: "User"))
        let good = try json(#"{"name":"Ann","address":{"city":"Oslo"}}"#)
        let bad = try json(#"{"name":"Ann","address":{"city":7}}"#)
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 where !user.isValid(good) || user.isValid(bad) || user.validate(bad).count != 1 {
                failures.increment()
            }
        }
        XCTAssertEqual(failures.value, 0)
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
