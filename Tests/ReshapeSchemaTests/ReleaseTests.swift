import ReshapeJSON
import XCTest

@testable import ReshapeSchema

/// A recursive schema (`$ref` back to an ancestor) must not keep itself alive: rules are
/// recompiled on reload, and a reference cycle would leak every old rule set.
final class ReleaseTests: XCTestCase {
    func testRecursiveValidatorIsFreedWhenDropped() throws {
        weak var root: SchemaNode?
        do {
            let schema = try JSON(parsing: ##"{"type":"object","properties":{"next":{"$ref":"#"}}}"##)
            let validator = try Validator(schema: schema)
            root = validator.root
            // Still usable through the unowned $ref edge while the validator lives.
            XCTAssertTrue(validator.isValid(try JSON(parsing: #"{"next":{"next":{}}}"#)))
            XCTAssertFalse(validator.isValid(try JSON(parsing: #"{"next":{"next":3}}"#)))
            XCTAssertNotNil(root)
        }
        XCTAssertNil(root, "the validator's nodes outlived it")
    }

    func testMutuallyRecursiveTypesAreFreedWhenTheSetIsDropped() throws {
        weak var root: SchemaNode?
        var user: Validator?
        do {
            let set = try SchemaSet(types: [
                ("Person", try JSON(parsing: #"{"properties":{"friends":{"type":"array","items":{"$ref":"Group"}}}}"#)),
                ("Group", try JSON(parsing: #"{"properties":{"members":{"type":"array","items":{"$ref":"Person"}}}}"#)),
            ])
            user = set.validator(named: "Person")
            root = user?.root
        }
        // The set is gone, but a validator taken from it keeps everything it needs.
        XCTAssertFalse(try XCTUnwrap(user).isValid(try JSON(parsing: #"{"friends":[{"members":[{"friends":7}]}]}"#)))
        XCTAssertNotNil(root)
        user = nil
        XCTAssertNil(root, "the set's nodes outlived every validator")
    }
}
