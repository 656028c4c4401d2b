import ReshapeJSON
import ReshapeSchema
import XCTest

/// Format assertion: the optional suite files we claim to pass in full must stay at zero failures.
final class FormatTests: XCTestCase {
    /// Every optional/format file except hostname/idn-hostname (IDNA rules not implemented) and
    /// ecmascript-regex (Swift Regex has no lookbehind); see docs/schema.md.
    static let fullyPassing = [
        "date-time", "date", "duration", "email", "idn-email", "ipv4", "ipv6",
        "iri-reference", "iri", "json-pointer", "regex", "relative-json-pointer",
        "time", "unknown", "uri-reference", "uri-template", "uri", "uuid",
    ]

    func testFormatsWeClaimPassTheirOptionalSuiteFiles() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        for name in Self.fullyPassing {
            let outcome = suite.run("optional/format/\(name).json", options: .init(assertFormat: true))
            XCTAssertGreaterThan(outcome.passed, 0, name)
            for failure in outcome.failures { XCTFail(failure) }
        }
    }

    func testFormatOnlyAnnotatesByDefault() throws {
        let schema = try JSON(parsing: #"{"format":"ipv4"}"#)
        XCTAssertTrue(try Validator(schema: schema).isValid(.string("999.1.1.1")))
        XCTAssertFalse(try Validator(schema: schema, options: .init(assertFormat: true)).isValid(.string("999.1.1.1")))
        let violations = try Validator(schema: schema, options: .init(assertFormat: true)).validate(
            .string("999.1.1.1"))
        XCTAssertEqual(violations.map(\.description), [#": format: "999.1.1.1" is not a valid ipv4"#])
    }
}
