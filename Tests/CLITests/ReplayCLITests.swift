import XCTest

/// `reshape replay`: a recorded Firebase event stream through a live route, printed as the
/// server-sent events a subscriber would get.
final class ReplayCLITests: XCTestCase {
    func testTheRecordedUsersStreamGivesASnapshotAndOnePatchPerChange() throws {
        let run = try reshape(["replay", "--rules", "examples/rules", "--route", "users", "examples/streams/users.sse"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        XCTAssertEqual(
            run.stdout,
            """
            id: 1
            event: snapshot
            data: {"objects":[{"objectId":"-Nx1","name":"Ada","age":36,"email":"ada@example.com"},\
            {"objectId":"-Nx2","name":"Bea","age":31,"email":"bea@example.com"},\
            {"objectId":"-Nx4","name":"Cy","age":28,"email":"cy@example.com"}]}

            id: 2
            event: patch
            data: [{"op":"replace","path":"/objects/1/age","value":32}]

            id: 3
            event: patch
            data: [{"op":"add","path":"/objects/3","value":{"objectId":"-Nx5","name":"Dee","email":"dee@example.com"}}]

            id: 4
            event: patch
            data: [{"op":"remove","path":"/objects/2"}]

            id: 5
            event: patch
            data: [{"op":"remove","path":"/objects/0"}]


            """)
    }

    func testDocsLiveShowsWhatReplayPrints() throws {
        let run = try reshape(["replay", "--rules", "examples/rules", "--route", "users", "examples/streams/users.sse"])
        let docs = try String(
            contentsOf: CLIRunner.packageRoot.appendingPathComponent("docs/live.md"), encoding: .utf8)
        XCTAssertTrue(docs.contains("```\n" + run.stdout + "```\n"), "docs/live.md's example is not replay's output")
    }

    func testTheSnapshotIsWhatApplyAnswersForTheSameBody() throws {
        let body =
            #"{"-Nx2":{"name":"Bea","age":31,"email":"bea@example.com"},"-Nx1":{"name":"Ada","age":"36","email":"ada@example.com"}}"#
        let stream = "event: put\ndata: {\"path\":\"/\",\"data\":\(body)}\n\n"
        let replay = try reshape(["replay", "--rules", "examples/rules", "--route", "users"], stdin: stream)
        let apply = try reshape(["apply", "--rules", "examples/rules", "--route", "users"], stdin: body)
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stdout, "id: 1\nevent: snapshot\ndata: \(apply.stdout)\n")
    }

    func testAStreamEndedByAnErrorPrintsItAndExitsOne() throws {
        let stream = """
            event: put
            data: {"path":"/","data":{"name":"Ada","email":"ada@example.com"}}

            event: put
            data: {"path":"/name","data":""}

            event: keep-alive
            data: null


            """
        let run = try reshape(
            ["replay", "--rules", "examples/rules", "--route", "user", "--param", "id=u1"], stdin: stream)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.stdout,
            """
            id: 1
            event: snapshot
            data: {"name":"Ada","email":"ada@example.com","objectId":"u1"}

            id: 2
            event: error
            data: {"type":"https://reshape.dev/problems/validation-failed",\
            "title":"Upstream response could not be normalized","status":502,\
            "detail":"value does not match type User (/name: length 0 is less than 1)","code":"validation-failed",\
            "route":"user","upstream":"demo","pointer":"",\
            "errors":[{"pointer":"/name","keyword":"minLength","reason":"length 0 is less than 1"}]}


            """)
        XCTAssertEqual(
            run.stderr,
            "reshape: route 'user': stdin:4: event 2 ended the stream with validation-failed; 1 later event not replayed\n"
        )

        let cancelled = try reshape(
            ["replay", "--rules", "examples/rules", "--route", "users"], stdin: "event: cancel\ndata: null\n\n")
        XCTAssertEqual(cancelled.status, 1)
        XCTAssertTrue(cancelled.stdout.hasPrefix("id: 1\nevent: error\ndata: {\"type\":"), cancelled.stdout)
        XCTAssertTrue(cancelled.stdout.contains(#""code":"upstream-stream-cancelled","route":"users""#))
    }

    func testBadRecordingsNameTheEventAndPrintNothing() throws {
        let malformed = try temporaryFile(
            "event: put\ndata: {\"path\":\"/\",\"data\":{}}\n\n: keep-alive\nevent: patch\ndata: {\"path\":\"/a\",\n\n",
            "bad.sse")
        let bad = try reshape(["replay", "--rules", "examples/rules", "--route", "users", malformed])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stdout, "")
        XCTAssertEqual(
            bad.stderr,
            "\(malformed):5: event 2: malformed 'patch': data is not JSON: 1:14: unexpected end of input, "
                + "expected a member name\n")

        let json = try reshape(["replay", "--rules", "examples/rules", "--route", "users"], stdin: #"{"-Nx1": {}}"#)
        XCTAssertEqual(json.status, 1)
        XCTAssertEqual(json.stdout, "")
        XCTAssertTrue(json.stderr.hasPrefix("stdin: no server-sent events"), json.stderr)

        let unnamed = try reshape(
            ["replay", "--rules", "examples/rules", "--route", "users"], stdin: "\n\ndata: {}\n\n")
        XCTAssertEqual(unnamed.status, 1)
        XCTAssertEqual(
            unnamed.stderr,
            "stdin:3: event 1: 'message' is not a Firebase stream event "
                + "(put, patch, keep-alive, cancel, auth_revoked)\n")
    }

    func testOnlyGetRoutesWithOneFetchCanBeReplayed() throws {
        for (route, why) in [
            ("profile", "it fetches user, devices (`fetch:`)"), ("posts", "it has `expand`"),
            ("create-user", "it is a POST route"),
        ] {
            let run = try reshape(
                ["replay", "--rules", "examples/rules", "--route", route, "--param", "id=u1"],
                stdin: "event: keep-alive\ndata: null\n\n")
            XCTAssertEqual(run.status, 2, route)
            XCTAssertEqual(
                run.stderr,
                "reshape: route '\(route)' cannot be streamed: \(why); "
                    + "a live route is a GET with one fetch, without `expand`\n")
        }
        let missing = try reshape([
            "replay", "--rules", "examples/rules", "--route", "user", "examples/streams/users.sse",
        ])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stderr, "reshape: route 'user' needs --param id=...\n")
        XCTAssertEqual(try reshape(["replay", "--rules", "examples/rules", "--route", "nope"], stdin: "").status, 2)
    }

    func testTheVerbIsListedInTheHelp() throws {
        let help = try reshape(["--help"])
        XCTAssertTrue(help.stdout.contains("replay"), help.stdout)
        XCTAssertTrue(help.stdout.contains("reshape replay --rules examples/rules --route users"), help.stdout)
    }
}
