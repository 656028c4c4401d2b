import ReshapeJSON
import XCTest

@testable import ReshapeRules

/// `reshape test` on issue 9's shapes: examples with request bodies, several upstream
/// bodies and follow-up bodies, run through `RouteRun` as the server runs them.
final class CompositionExampleTests: XCTestCase {
    /// The example's failure messages by index (nil: passed).
    private func outcomes(_ rules: String, file: StaticString = #filePath, line: UInt = #line) -> [String?] {
        guard let ruleSet = loaded([("r.yaml", rules)], file: file, line: line) else { return [] }
        return ExampleRunner.run(ruleSet).map(\.failure)
    }

    private let posts =
        plainUpstream + """
            routes:
              - name: posts
                request: GET /posts
                upstream: api
                path: /posts.json
                transform:
                  - keyed-to-array: { key: postId }
                  - expand:
                      key: authorId
                      fetch: { upstream: api, path: "/users/{value}.json" }
                      as: author
                      transform: [ { require: present } ]
                      missing: MISSING
                      max-fetches: 2
                  - wrap: posts

            """

    private func posts(missing: String, examples: String) -> String {
        posts.replacingOccurrences(of: "MISSING", with: missing) + "    examples:\n" + examples
    }

    func testFollowUpsAreMergedAndAMissingOneIsNull() {
        let results = outcomes(
            posts(
                missing: "null",
                examples: """
                          - upstream: { p1: { authorId: u1 }, p2: { authorId: u2 }, p3: { authorId: u1 }, p4: { title: none } }
                            follow-ups:
                              /users/u1.json: { name: Ada }
                              /users/u2.json: null
                            response:
                              posts:
                                - { postId: p1, authorId: u1, author: { name: Ada } }
                                - { postId: p2, authorId: u2, author: null }
                                - { postId: p3, authorId: u1, author: { name: Ada } }
                                - { postId: p4, title: none, author: null }
                          - upstream: { p1: { authorId: u1 } }
                            response: { posts: [ { postId: p1, authorId: u1, author: { name: Ada } } ] }

                    """))
        XCTAssertEqual(results.count, 2)
        XCTAssertNil(results[0], "u2's null body fails `require: present`: missing, so null")
        XCTAssertEqual(
            results[1], "response differs at /posts/0/author: expected {\"name\":\"Ada\"}, got null",
            "a path not listed answers 404")
    }

    func testMissingDropRemovesTheElementAndCountsIt() {
        let results = outcomes(
            posts(
                missing: "drop",
                examples: """
                          - upstream: { p1: { authorId: u1 }, p2: { authorId: u2 } }
                            follow-ups: { /users/u1.json: { name: Ada } }
                            response: { posts: [ { postId: p1, authorId: u1, author: { name: Ada } } ] }
                            dropped: 1

                    """))
        XCTAssertEqual(results, [nil])
    }

    func testMissingFailAndMaxFetches() {
        let results = outcomes(
            posts(
                missing: "fail",
                examples: """
                          - upstream: { p1: { authorId: u1 }, p2: { authorId: u2 } }
                            follow-ups: { /users/u1.json: { name: Ada } }
                            error: follow-up-missing
                          - upstream: { p1: { authorId: u1 }, p2: { authorId: u1 }, p3: { authorId: u2 } }
                            follow-ups: { /users/u1.json: { name: Ada }, /users/u2.json: { name: Bo } }
                            response: { posts: [ { postId: p1, authorId: u1, author: { name: Ada } }, { postId: p2, authorId: u1, author: { name: Ada } }, { postId: p3, authorId: u2, author: { name: Bo } } ] }
                          - upstream: { p1: { authorId: u1 }, p2: { authorId: u2 }, p3: { authorId: u3 } }
                            error: too-many-fetches

                    """))
        XCTAssertEqual(results, [nil, nil, nil], "two distinct authors fit max-fetches: 2, three do not")
    }

    func testFollowUpsAreDeduplicatedInFirstSeenOrder() throws {
        let rules = try XCTUnwrap(loaded([("r.yaml", posts.replacingOccurrences(of: "MISSING", with: "drop"))]))
        var run = RouteRun(route: rules.routes[0], parameters: [:])
        let body = OfflineRun.tape(
            json(
                #"{"a": {"authorId": "u2"}, "b": {"authorId": 7}, "c": {"authorId": "u2"}, "d": {"authorId": ""}, "e": {}}"#
            ))
        guard case .followUps(let expand, let values) = try run.start(body) else {
            return XCTFail("expected follow-ups")
        }
        XCTAssertEqual(values, ["u2", "7"])
        XCTAssertEqual(try expand.fetch.renderedPath(["value": "7"]), "/users/7.json")
        guard
            case .done(let output) = try run.resume(["u2": .body(OfflineRun.tape(json(#"{"n": 2}"#))), "7": .notFound])
        else {
            return XCTFail("expected the result")
        }
        assertJSON(
            output.value,
            #"{"posts": [{"postId": "a", "authorId": "u2", "author": {"n": 2}}, {"postId": "c", "authorId": "u2", "author": {"n": 2}}]}"#
        )
        XCTAssertEqual(output.dropped.map(\.pointer), ["/1", "/3", "/4"])
    }

    func testFanOutWithAnOptionalFetchLeftOut() {
        let text =
            plainUpstream + """
                routes:
                  - name: profile
                    request: GET /profile/{id}
                    fetch:
                      user:    { upstream: api, path: "/users/{id}.json" }
                      devices: { upstream: api, path: "/devices/{id}.json", optional: true }
                    transform:
                      - at: { path: /devices, do: [ { keyed-to-array: { key: deviceId } } ] }
                      - merge: { base: /user, add: { devices: /devices } }
                    examples:
                      - params: { id: u1 }
                        upstream: { user: { name: Ada }, devices: { d1: { kind: phone } } }
                        response: { name: Ada, devices: [ { deviceId: d1, kind: phone } ] }
                      - params: { id: u1 }
                        upstream: { user: { name: Ada } }
                        response: { name: Ada, devices: [] }
                      - params: { id: u1 }
                        upstream: { user: null }
                        error: not-an-object
                """
        XCTAssertEqual(
            outcomes(text), [nil, nil, nil], "a left-out optional fetch is null; keyed-to-array reads null as empty")
    }

    func testRequestBodiesAreValidatedTransformedAndEncoded() {
        let text =
            plainUpstream + """
                types:
                  NewUser:
                    type: object
                    required: [name]
                    properties: { name: { type: string, minLength: 1 } }
                routes:
                  - name: create
                    request: POST /teams/{team}/users
                    upstream: api
                    path: /users.json
                    body:
                      type: NewUser
                      transform: [ { drop: [admin] }, { set: { team: "{team}" } } ]
                    transform: [ { rename: { name: objectId } } ]
                    examples:
                      - params: { team: t1 }
                        request-body: { name: Ada, admin: true }
                        sends: { name: Ada, team: t1 }
                        upstream: { name: "-N1" }
                        response: { objectId: "-N1" }
                      - params: { team: t1 }
                        request-body: { name: "" }
                        error: validation-failed
                      - params: { team: t1 }
                        request-body: { name: Ada }
                        sends: { team: t1, name: Ada }
                        upstream: {}
                        response: {}
                  - name: login
                    request: POST /login
                    upstream: api
                    path: /login
                    body: { encoding: form }
                    transform: []
                    examples:
                      - request-body: { user: "a b", n: 1, ok: true, none: null }
                        sends: "user=a%20b&n=1&ok=true&none="
                        upstream: {}
                        response: {}
                      - request-body: { user: { nested: 1 } }
                        error: form-not-flat
                """
        let results = outcomes(text)
        XCTAssertEqual(results.count, 5)
        XCTAssertNil(results[0])
        XCTAssertNil(results[1], "the body's type refuses it before any upstream is needed")
        XCTAssertEqual(
            results[2], "sends has its members in another order at (root): expected [team, name], got [name, team]",
            "member order counts, as in responses")
        XCTAssertNil(results[3])
        XCTAssertNil(results[4])
    }

    func testTheIssueExampleRunsOffline() throws {
        let rules = try XCTUnwrap(loaded([("issue.yaml", issueExampleRules)]))
        let example = RouteExample(
            upstream: json(#"{"p1": {"authorId": "u1"}, "p2": {"authorId": "u9"}}"#),
            response: json(
                #"[{"postId": "p1", "authorId": "u1", "author": {"name": "Ada"}}, {"postId": "p2", "authorId": "u9", "author": null}]"#
            ),
            followUps: ["/users/u1.json": json(#"{"name": "Ada"}"#)],
            location: SourceLocation(file: "t", line: 1, column: 1))
        XCTAssertNil(ExampleRunner.check(example, route: rules.routes[2]))
        let create = RouteExample(
            upstream: json(#"{"name": "-N1"}"#), response: json(#"{"objectId": "-N1"}"#),
            requestBody: json(#"{"name": "Ada", "admin": true}"#), sends: json(#"{"name": "Ada"}"#),
            location: SourceLocation(file: "t", line: 1, column: 1))
        XCTAssertNil(ExampleRunner.check(create, route: rules.routes[0]))
    }
}
