import Foundation
import XCTest

/// The `reshape` binary as a user runs it: arguments, files, stdin, stdout, stderr, exit status.
final class CLITests: XCTestCase {
    func testExampleRulesPassTheirExamples() throws {
        let run = try reshape(["test", "--rules", "examples/rules"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.hasSuffix(" passed, 0 failed\n"), run.stdout)
        XCTAssertEqual(try reshape(["check", "--rules", "examples/rules"]).status, 0)
    }

    func testOfflineVerbsStartWithoutLoadingLibcurl() throws {
        // The dynamic loader says which libraries it maps (LD_DEBUG=files, on standard error):
        // libcurl and the libraries it brings are a server's, loaded when one starts.
        let upstream = #"{"-Nx1":{"name":"Ada","age":36,"email":"ada@example.com"}}"#
        let run = try CLIRunner.reshape(
            ["apply", "--rules", "examples/rules", "--route", "users", try temporaryFile(upstream)],
            environment: ["LD_DEBUG": "files"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("libuv"), "LD_DEBUG said nothing of the libraries loaded")
        XCTAssertFalse(run.stderr.contains("libcurl"), "reshape apply loaded libcurl")
    }

    func testApplyPrintsExactlyTheExamplesResponse() throws {
        let upstream =
            #"{"-Nx2":{"name":"Bea","age":31,"email":"bea@example.com"},"-Nx1":{"name":"Ada","age":"36","email":"ada@example.com"},"-Nx3":{"name":"","email":"nobody@example.com"}}"#
        let run = try reshape(["apply", "--rules", "examples/rules", "--route", "users", try temporaryFile(upstream)])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(
            run.stdout,
            #"{"objects":[{"objectId":"-Nx1","name":"Ada","age":36,"email":"ada@example.com"},{"objectId":"-Nx2","name":"Bea","age":31,"email":"bea@example.com"}]}"#
                + "\n")
        XCTAssertTrue(run.stderr.contains("dropped /2 (User)"), run.stderr)
    }

    func testApplyAndExplainOrderByTheQueryOfARouteWithFirebaseQuery() throws {
        let upstream =
            #"{"a":{"name":"Ann","age":40,"email":"a@x.io"},"b":{"name":"Bob","age":20,"email":"b@x.io"},"c":{"name":"Cy","age":30,"email":"c@x.io"}}"#
        let byAge = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "people", "--query", #"orderBy="age"&limitToFirst=3"#],
            stdin: upstream)
        XCTAssertEqual(byAge.status, 0, byAge.stderr)
        XCTAssertEqual(
            byAge.stdout,
            #"{"objects":[{"objectId":"b","name":"Bob","age":20,"email":"b@x.io"},{"objectId":"c","name":"Cy","age":30,"email":"c@x.io"},{"objectId":"a","name":"Ann","age":40,"email":"a@x.io"}]}"#
                + "\n")
        let byKey = try reshape(["apply", "--rules", "examples/rules", "--route", "people"], stdin: upstream)
        XCTAssertTrue(byKey.stdout.hasPrefix(#"{"objects":[{"objectId":"a""#), byKey.stdout)
        let explained = try reshape(
            ["explain", "--rules", "examples/rules", "--route", "people", "--json", "--query", #"orderBy="age""#],
            stdin: upstream)
        XCTAssertEqual(explained.status, 0, explained.stderr)
        let bad = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "people", "--query", "orderBy=age"], stdin: upstream)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("'orderBy' must be a JSON string"), bad.stderr)
        let notQuery = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "my-users", "--query", #"orderBy="age""#], stdin: upstream
        )
        XCTAssertEqual(notQuery.status, 2)
        XCTAssertTrue(notQuery.stderr.contains("firebase-query: true"), notQuery.stderr)
    }

    func testApplyMakesTheViewOfARouteWithClientQuery() throws {
        let upstream = #"{"a":{"name":"Ann","age":40,"email":"a@x.io"},"b":{"name":"Bob","age":20,"email":"b@x.io"}}"#
        let view = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "users", "--query", "fields=name&sort=-name"],
            stdin: upstream)
        XCTAssertEqual(view.status, 0, view.stderr)
        XCTAssertEqual(
            view.stdout, #"{"objects":[{"objectId":"b","name":"Bob"},{"objectId":"a","name":"Ann"}]}"# + "\n")
        let bad = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "users", "--query", "age[near]=1"], stdin: upstream)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("bad-parameter"), bad.stderr)
    }

    func testApplyFromStdinWithParametersAndFailures() throws {
        let ok = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "user", "--param", "id=u1"],
            stdin: #"{"name":"Ada","email":"a@b.c"}"#)
        XCTAssertEqual(ok.stdout, #"{"name":"Ada","email":"a@b.c","objectId":"u1"}"# + "\n")
        let invalid = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "user", "--param", "id=u1"], stdin: #"{"name":""}"#)
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.stderr.contains("validation-failed"), invalid.stderr)
        let notJSON = try reshape(
            ["apply", "--rules", "examples/rules", "--route", "users"], stdin: "{\n  \"a\": tru\n}")
        XCTAssertEqual(notJSON.status, 1)
        XCTAssertEqual(notJSON.stderr, "stdin:2:8: invalid literal, expected 'true'\n")
        XCTAssertEqual(try reshape(["apply", "--rules", "examples/rules", "--route", "nope"], stdin: "{}").status, 2)
        XCTAssertEqual(try reshape(["apply", "--rules", "examples/rules", "--route", "user"], stdin: "{}").status, 2)
    }

    func testCheckReportsProblemsWithPositions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "routes:\n  - name: x\n    request: GET /x\n    upstream: none\n    path: /x.json\n    transform: []\n"
            .write(to: directory.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        let run = try reshape(["check", "--rules", directory.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("bad.yaml:4:15: unknown upstream 'none'"), run.stderr)
    }

    func testFormatIsStrictAndCanonical() throws {
        let pretty = try reshape(["format"], stdin: #"{"b":[1,2.50],"a":-0}"#)
        XCTAssertEqual(pretty.stdout, "{\n  \"b\": [\n    1,\n    2.50\n  ],\n  \"a\": -0\n}\n")
        XCTAssertEqual(try reshape(["format", "--compact"], stdin: "{ \"a\" : [ 1 ] }").stdout, "{\"a\":[1]}\n")
        let bad = try reshape(["format", try temporaryFile("[1,]")])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasSuffix(":1:4: trailing comma before ']'\n"), bad.stderr)
    }

    func testValidateExitStatuses() throws {
        let schema = try temporaryFile(
            #"{"type":"object","properties":{"age":{"type":"integer","minimum":0}},"required":["age"]}"#, "s.json")
        XCTAssertEqual(try reshape(["validate", "--schema", schema], stdin: #"{"age":3}"#).status, 0)
        let invalid = try reshape(["validate", "--schema", schema], stdin: #"{"age":-3}"#)
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.stdout.contains("/age: minimum"), invalid.stdout)
        let badSchema = try temporaryFile(#"{"type":"object","properties":{"a":{"pattern":"(["}}}"#, "bad.json")
        XCTAssertEqual(try reshape(["validate", "--schema", badSchema], stdin: "{}").status, 2)
        XCTAssertEqual(try reshape(["validate"], stdin: "{}").status, 2)
    }

    func testValidateResolvesMappedRemoteRefsFromDisk() throws {
        let environment = ProcessInfo.processInfo.environment["RESHAPE_CONFORMANCE_DIR"] ?? ""
        let suite =
            environment.isEmpty
            ? CLIRunner.packageRoot.appendingPathComponent(".build-conformance/json-schema-test-suite").path
            : environment
        let remotes = URL(fileURLWithPath: suite).appendingPathComponent("remotes")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: remotes.path),
            "\(remotes.path) not found: run scripts/fetch-conformance.sh (or set RESHAPE_CONFORMANCE_DIR)")
        let schema = try temporaryFile(#"{"$ref":"http://localhost:1234/integer.json"}"#, "remote.json")
        let map = "http://localhost:1234/=\(remotes.path)"
        XCTAssertEqual(try reshape(["validate", "--schema", schema, "--map", map], stdin: "12").status, 0)
        XCTAssertEqual(try reshape(["validate", "--schema", schema, "--map", map], stdin: "\"x\"").status, 1)
    }

    /// Cache settings are checked before anything starts: a bad one exits 2 and names itself.
    /// The rules path does not exist, so a setting that were wrongly accepted would exit 1 (the
    /// rules) instead of starting a server.
    func testServeRefusesBadCacheSettings() throws {
        let refused: [([String], String)] = [
            (["--cache-redis", "http://127.0.0.1:6379"], "must start with redis://"),
            (["--cache-redis", "redis://user:secret@127.0.0.1"], "credentials in the URL are not supported"),
            (["--cache-redis", "redis://:secret@\u{301}127.0.0.1"], "credentials in the URL are not supported"),
            (["--cache-redis", "redis://127.0.0.1:6379?password=secret"], "bad port"),
            (["--cache-redis", "redis://127.0.0.1:99999"], "bad port"),
            (["--cache-redis", "redis://127.0.0.1/16"], "database must be a number 0-15"),
            (["--cache-redis", "redis://"], "no host"),
            (["--cache-redis", "redis://127.0.0.1", "--cache-bytes", "0"], "needs the in-process cache"),
            (["--cache-bytes", "lots"], "--cache-bytes takes a size"),
        ]
        for (arguments, message) in refused {
            let run = try reshape(["serve", "--rules", "no/such/rules"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("secret"), "a password in the URL is never echoed")
        }
        XCTAssertEqual(
            try reshape(["serve", "--rules", "no/such/rules", "--cache-redis", "redis://127.0.0.1:6379/2"]).status, 1,
            "a good URL passes on to the rules, which do not exist")
    }

    func testVersionAndHelp() throws {
        XCTAssertEqual(try reshape(["--version"]).stdout, "0.1.0\n")
        for verb in ["check", "test", "apply", "validate", "format", "serve"] {
            let help = try reshape([verb, "--help"])
            XCTAssertEqual(help.status, 0, verb)
            XCTAssertTrue(help.stdout.contains("USAGE: reshape \(verb)"), help.stdout)
        }
    }
}
