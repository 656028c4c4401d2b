import Foundation
import ReshapeJSON
import XCTest

/// `reshape check`, `test` and `apply` on issue 9's shapes: warnings, client bodies, several
/// upstream bodies and follow-up bodies.
final class CLICompositionTests: XCTestCase {
    private static let rules = """
        upstreams:
          firebase: { url: "http://127.0.0.1:9" }
        types:
          NewUser: { type: object, required: [name], properties: { name: { type: string, minLength: 1 } } }
        routes:
          - name: create-user
            request: POST /users
            upstream: firebase
            path: /users.json
            forward-headers: [Authorization, Host]
            body: { type: NewUser, transform: [ { drop: [admin] } ] }
            transform: [ { rename: { name: objectId } } ]
            examples:
              - request-body: { name: Ada, admin: true }
                sends: { name: Ada }
                upstream: { name: "-N1" }
                response: { objectId: "-N1" }
              - request-body: { name: "" }
                error: validation-failed
          - name: profile
            request: GET /profile/{id}
            fetch:
              user:    { upstream: firebase, path: "/users/{id}.json" }
              devices: { upstream: firebase, path: "/devices/{id}.json", optional: true }
            transform:
              - merge: { base: /user, add: { devices: /devices } }
            examples:
              - params: { id: u1 }
                upstream: { user: { name: Ada } }
                response: { name: Ada, devices: null }
          - name: posts
            request: GET /posts
            upstream: firebase
            path: /posts.json
            transform:
              - keyed-to-array: { key: postId }
              - expand: { key: authorId, fetch: { upstream: firebase, path: "/users/{value}.json" }, as: author }
            examples:
              - upstream: { p1: { authorId: u1 }, p2: { authorId: u2 } }
                follow-ups: { /users/u1.json: { name: Ada } }
                response: [ { postId: p1, authorId: u1, author: { name: Ada } }, { postId: p2, authorId: u2, author: null } ]

        """

    private func rulesFile() throws -> String { try temporaryFile(Self.rules, "rules.yaml") }

    func testCheckPrintsWarningsWithoutFailing() throws {
        let run = try reshape(["check", "--rules", try rulesFile()])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("rules.yaml:10:38: warning: 'Host' is never forwarded"), run.stderr)
        XCTAssertTrue(run.stdout.hasSuffix("3 routes, 4 examples; no problems, 1 warning\n"), run.stdout)
    }

    func testTestRunsTheNewExampleKeys() throws {
        let run = try reshape(["test", "--rules", try rulesFile()])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.hasSuffix("4 passed, 0 failed\n"), run.stdout)
    }

    func testApplyWithARequestBody() throws {
        let rules = try rulesFile()
        let body = try temporaryFile(#"{"name": "Ada", "admin": true}"#, "body.json")
        let ok = try reshape(
            ["apply", "--rules", rules, "--route", "create-user", "--request-body", body], stdin: #"{"name": "-N1"}"#)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stdout, #"{"objectId":"-N1"}"# + "\n")
        XCTAssertEqual(ok.stderr, #"sends application/json: {"name":"Ada"}"# + "\n")

        let invalid = try temporaryFile(#"{"name": ""}"#, "invalid.json")
        let refused = try reshape(
            ["apply", "--rules", rules, "--route", "create-user", "--request-body", invalid], stdin: "{}")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("request body: validation-failed at /name"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("  /name: minLength:"), refused.stderr)

        let noBody = try reshape(["apply", "--rules", rules, "--route", "posts", "--request-body", body], stdin: "{}")
        XCTAssertEqual(noBody.status, 2)
        XCTAssertTrue(noBody.stderr.contains("takes no request body"), noBody.stderr)
    }

    func testApplyWithSeveralUpstreamBodies() throws {
        let rules = try rulesFile()
        let user = try temporaryFile(#"{"name": "Ada"}"#, "user.json")
        let devices = try temporaryFile(#"["d1"]"#, "devices.json")
        let both = try reshape([
            "apply", "--rules", rules, "--route", "profile", "--param", "id=u1",
            "--upstream", "user=\(user)", "--upstream", "devices=\(devices)",
        ])
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertEqual(both.stdout, #"{"name":"Ada","devices":["d1"]}"# + "\n")
        let asOneObject = try reshape(
            ["apply", "--rules", rules, "--route", "profile", "--param", "id=u1"],
            stdin: #"{"user": {"name": "Ada"}}"#)
        XCTAssertEqual(
            asOneObject.stdout, #"{"name":"Ada","devices":null}"# + "\n", "an optional fetch left out is null")

        let noUser = try reshape([
            "apply", "--rules", rules, "--route", "profile", "--param", "id=u1", "--upstream", "devices=\(devices)",
        ])
        XCTAssertEqual(noUser.status, 2)
        XCTAssertTrue(noUser.stderr.contains("needs a body for 'user'"), noUser.stderr)
        let unknown = try reshape([
            "apply", "--rules", rules, "--route", "profile", "--param", "id=u1", "--upstream", "phones=\(devices)",
        ])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("has no fetch 'phones'"), unknown.stderr)
        let single = try reshape(["apply", "--rules", rules, "--route", "posts", "--upstream", "x=\(devices)"])
        XCTAssertEqual(single.status, 2)
    }

    func testApplyWithFollowUps() throws {
        let rules = try rulesFile()
        let author = try temporaryFile(#"{"name": "Ada"}"#, "u1.json")
        let run = try reshape(
            ["apply", "--rules", rules, "--route", "posts", "--follow-up", "/users/u1.json=\(author)"],
            stdin: #"{"p1": {"authorId": "u1"}, "p2": {"authorId": "u2"}}"#)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(
            run.stdout,
            #"[{"postId":"p1","authorId":"u1","author":{"name":"Ada"}},{"postId":"p2","authorId":"u2","author":null}]"#
                + "\n")
        let bad = try reshape(
            ["apply", "--rules", rules, "--route", "posts", "--follow-up", "users/u1.json=\(author)"], stdin: "{}")
        XCTAssertEqual(bad.status, 2)
    }
}

extension CLICompositionTests {
    func testExplainTracesFetchRoutesAndExpand() throws {
        let rules = try rulesFile()
        let author = try temporaryFile(#"{"name": "Ada"}"#, "u1.json")
        let posts = try reshape(
            ["explain", "--rules", rules, "--route", "posts", "--follow-up", "/users/u1.json=\(author)"],
            stdin: #"{"p1": {"authorId": "u1"}, "p2": {"authorId": "u2"}}"#)
        XCTAssertEqual(posts.status, 0, posts.stderr)
        XCTAssertTrue(
            posts.stdout.contains(
                "\n2. expand\n   -> array(2) [{\"postId\": \"p1\", \"authorId\": \"u1\", \"author\": {\"name\": \"Ada\"}}"
            ), posts.stdout)
        let apply = try reshape(
            ["apply", "--rules", rules, "--route", "posts", "--follow-up", "/users/u1.json=\(author)"],
            stdin: #"{"p1": {"authorId": "u1"}, "p2": {"authorId": "u2"}}"#)
        let json = try reshape(
            ["explain", "--rules", rules, "--route", "posts", "--json", "--follow-up", "/users/u1.json=\(author)"],
            stdin: #"{"p1": {"authorId": "u1"}, "p2": {"authorId": "u2"}}"#)
        guard case .array(let steps) = try JSON.parse(Array(json.stdout.utf8)), case .object(let last)? = steps.last
        else { return XCTFail(json.stdout) }
        XCTAssertEqual(last["value"], try JSON.parse(Array(apply.stdout.utf8)))
    }
}

extension CLICompositionTests {
    func testExplainTakesAFetchRoutesBodies() throws {
        let user = try temporaryFile(#"{"name": "Ada"}"#, "user.json")
        let run = try reshape([
            "explain", "--rules", try rulesFile(), "--route", "profile", "--param", "id=u1", "--upstream",
            "user=\(user)",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stdout.hasPrefix("input  object(2) {\"user\": {\"name\": \"Ada\"}, \"devices\": null}\n1. merge "),
            run.stdout)
    }
}
