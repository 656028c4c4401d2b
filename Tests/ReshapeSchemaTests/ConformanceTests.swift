import ReshapeSchema
import XCTest

/// The official JSON Schema draft 2020-12 suite: every required test must pass.
final class ConformanceTests: XCTestCase {
    func testRequiredDraft202012Suite() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        let files = suite.jsonFiles(in: "")
        XCTAssertEqual(files.count, ConformanceSuite.requiredFiles, "the required draft2020-12 files")
        var passed = 0
        var failures: [String] = []
        for file in files {
            let outcome = suite.run(file)
            print("\(file): \(outcome.passed) passed, \(outcome.failures.count) failed")
            passed += outcome.passed
            failures += outcome.failures
        }
        print("draft2020-12 required: \(passed) passed, \(failures.count) failed of \(passed + failures.count)")
        for failure in failures { XCTFail(failure) }
        XCTAssertEqual(passed + failures.count, ConformanceSuite.requiredTests, "the required suite's size")
    }

    /// `optional/format/*` with format assertion on: counts are printed, not enforced here
    /// (see docs/schema.md); the formats we claim are enforced in FormatTests.
    func testOptionalFormatSuiteCounts() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        var passed = 0
        var failed = 0
        for file in suite.jsonFiles(in: "optional/format") {
            let outcome = suite.run(file, options: .init(assertFormat: true))
            print("\(file): \(outcome.passed) passed, \(outcome.failures.count) failed")
            for failure in outcome.failures { print("  \(failure)") }
            passed += outcome.passed
            failed += outcome.failures.count
        }
        print("optional/format (asserting): \(passed) passed, \(failed) failed")
    }

    /// The other optional draft 2020-12 files (bignum, ECMA regex, ...): printed for the record.
    func testOptionalSuiteCounts() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        var passed = 0
        var failed = 0
        for file in suite.jsonFiles(in: "optional") {
            let outcome = suite.run(file)
            print("\(file): \(outcome.passed) passed, \(outcome.failures.count) failed")
            for failure in outcome.failures { print("  \(failure)") }
            passed += outcome.passed
            failed += outcome.failures.count
        }
        print("optional (non-format): \(passed) passed, \(failed) failed")
    }
}
