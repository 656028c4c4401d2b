import Foundation
import ReshapeJSON
import XCTest

/// `reshape infer` and `reshape explain` as a user runs them.
final class CLIContractTests: XCTestCase {
    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-infer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The draft, written to a directory of its own, passes check and test unchanged.
    private func assertDraftPasses(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let infer = try reshape(["infer"] + arguments)
        XCTAssertEqual(infer.status, 0, infer.stderr, file: file, line: line)
        let rules = try directory()
        try infer.stdout.write(to: rules.appendingPathComponent("draft.yaml"), atomically: true, encoding: .utf8)
        let check = try reshape(["check", "--rules", rules.path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr + infer.stdout, file: file, line: line)
        let test = try reshape(["test", "--rules", rules.path])
        XCTAssertEqual(test.status, 0, test.stdout + test.stderr + infer.stdout, file: file, line: line)
        XCTAssertTrue(test.stdout.hasSuffix(" passed, 0 failed\n"), test.stdout, file: file, line: line)
        return infer.stdout
    }

    func testInferOnTheDemoAnswersPassesCheckAndTest() throws {
        let users = try assertDraftPasses(["Tests/Fixtures/demo/users.json", "--name", "User"])
        XCTAssertTrue(users.contains("- keyed-to-array: { key: objectId, order: key }"), users)
        XCTAssertTrue(users.contains("email: { type: string, format: email }"), users)
        let devices = try assertDraftPasses([
            "Tests/Fixtures/demo/devices.json", "--name", "Device", "--key", "userId", "--enums",
            "--upstream", "demo", "--path", "/devices.json", "--request", "GET /devices",
        ])
        XCTAssertTrue(devices.contains("os: { enum: [android, linux, ios, null] }"), devices)
        let scores = try assertDraftPasses(["Tests/Fixtures/demo/scores.json", "--key", "rank"])
        XCTAssertTrue(scores.contains("- keyed-to-array: { key: rank, order: numeric-key }"), scores)
        _ = try assertDraftPasses(["Tests/Fixtures/demo/widgets.json", "Tests/Fixtures/demo/widgets.json"])
    }

    func testInferTreatsAMinorityAsCorruptUnlessToldNotTo() throws {
        let users = try assertDraftPasses(["Tests/Fixtures/demo/users.json", "--name", "User"])
        XCTAssertTrue(
            users.contains(#"name: { type: string, minLength: 1 }  # 1 of 6 had "" here: treated as corrupt"#), users)
        XCTAssertTrue(
            users.contains("- coerce: { age: integer, invalid: keep }  # age: 1 of 7 had an integer as a string"), users
        )
        XCTAssertTrue(users.contains("dropped: 3"), users)
        let plain = try assertDraftPasses(["Tests/Fixtures/demo/users.json", "--name", "User", "--no-outliers"])
        XCTAssertFalse(plain.contains("coerce"), plain)
        XCTAssertFalse(plain.contains("treated as corrupt"), plain)
        XCTAssertFalse(plain.contains("dropped:"), plain)
    }

    func testInferOnOddSamples() throws {
        let nothing = try temporaryFile("null", "empty.json")
        let holes = try temporaryFile(#"[null, {"a": 1}, null, {"a": 2.5, "b": null}]"#, "holes.json")
        let list = try temporaryFile(#"[{"id": 1, "tags": ["x"]}, {"id": 2, "tags": []}]"#, "list.json")
        let record = try temporaryFile(
            #"{"name": "Ada", "born": "1815-12-10", "home": {"city": "London"}}"#, "record.json")
        _ = try assertDraftPasses([nothing])
        _ = try assertDraftPasses([holes, nothing])
        _ = try assertDraftPasses([list])
        let single = try assertDraftPasses([record, nothing, "--request", "GET /people/{id}", "--name", "Person"])
        XCTAssertTrue(single.contains("- require: present"), single)
        XCTAssertTrue(single.contains("error: not-found"), single)
        XCTAssertEqual(try reshape(["infer"]).status, 2)
        XCTAssertEqual(try reshape(["infer", record, "--request", "people"]).status, 2)
        XCTAssertEqual(try reshape(["infer", try temporaryFile("{", "bad.json")]).status, 1)
    }

    func testExplainShowsEachStepWithDropsAndCoercions() throws {
        let run = try reshape([
            "explain", "--rules", "examples/rules", "--route", "users", "Tests/Fixtures/demo/users.json",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.filter { $0.first?.isNumber == true },
            [
                #"1. keyed-to-array {"key": "objectId", "order": "key"}"#,
                #"2. coerce {"age": "integer", "invalid": "keep"}"#,
                #"3. validate {"type": "User", "invalid": "drop"}"#,
                #"4. wrap "objects""#,
            ])
        XCTAssertTrue(lines.contains(#"   coerced /3/age: "42" -> 42"#), run.stdout)
        XCTAssertTrue(lines.contains("   dropped /2 (User): /name: minLength: length 0 is less than 1"), run.stdout)
        XCTAssertTrue(
            lines.contains(
                "   -> array(7) [{\"objectId\": \"-NqK3a9Xb2mLp0Rt7Yv1\", \"name\": \"Ada Lovelace\", \"age\": 36, \"email\": \"a…"
            ), run.stdout)
        XCTAssertEqual(lines.last, "result object(1), 3 dropped")
        XCTAssertTrue(lines.allSatisfy { $0.count <= 110 }, run.stdout)
    }

    func testExplainJSONIsAnArrayOfSteps() throws {
        let run = try reshape([
            "explain", "--rules", "examples/rules", "--route", "users", "--json", "Tests/Fixtures/demo/users.json",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        guard case .array(let steps) = try JSON.parse(Array(run.stdout.utf8)) else { return XCTFail(run.stdout) }
        XCTAssertEqual(steps.count, 4)
        guard case .object(let validate) = steps[2], case .array(let dropped)? = validate["dropped"],
            case .object(let last) = steps[3], case .object(let coerce) = steps[1]
        else { return XCTFail(run.stdout) }
        XCTAssertEqual(dropped.count, 3)
        XCTAssertEqual(
            coerce["coerced"], try JSON.parse(Array(#"[{"pointer": "/3/age", "from": "42", "to": 42}]"#.utf8)))
        // The last step's value is exactly what `reshape apply` answers.
        let apply = try reshape([
            "apply", "--rules", "examples/rules", "--route", "users", "Tests/Fixtures/demo/users.json",
        ])
        XCTAssertEqual(last["value"], try JSON.parse(Array(apply.stdout.utf8)))
    }

    func testExplainShowsTheFailingStep() throws {
        let run = try reshape(
            ["explain", "--rules", "examples/rules", "--route", "user", "--param", "id=x"], stdin: #"{"name": ""}"#)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("3. validate\n   failed: validation-failed"), run.stdout)
        XCTAssertTrue(run.stdout.contains("   /name: minLength: length 0 is less than 1"), run.stdout)
        let json = try reshape(
            ["explain", "--rules", "examples/rules", "--route", "user", "--param", "id=x", "--json"], stdin: "null")
        XCTAssertEqual(json.status, 1)
        XCTAssertTrue(json.stdout.contains(#""code": "not-found""#), json.stdout)
        XCTAssertEqual(try reshape(["explain", "--rules", "examples/rules", "--route", "user"], stdin: "{}").status, 2)
    }
}
