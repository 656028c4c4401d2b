import ReshapeJSON
import XCTest

@testable import ReshapeRules

/// Issue 9's route keys: forward-headers, headers, body, fetch, expand, timeout,
/// expose-upstream-errors, and the mistakes each one can have.
final class RuleLoaderCompositionTests: XCTestCase {
    func testTheIssueExampleLoadsAsWritten() throws {
        let rules = try XCTUnwrap(loaded([("issue.yaml", issueExampleRules)]))
        XCTAssertEqual(rules.routes.map(\.name), ["create-user", "profile", "posts"])
        XCTAssertEqual(rules.warnings, [])

        let create = rules.routes[0]
        XCTAssertEqual(create.method, "POST")
        XCTAssertTrue(create.isSingleFetch)
        XCTAssertEqual(create.upstream, "firebase")
        XCTAssertEqual(create.forwardHeaders, ["Authorization", "X-Request-Id"])
        XCTAssertEqual(create.headers.map(\.name), ["X-Client"])
        XCTAssertEqual(create.headers[0].value([:]), "reshape")
        let body = try XCTUnwrap(create.body)
        XCTAssertEqual(body.typeName, "NewUser")
        XCTAssertNotNil(body.validator)
        XCTAssertEqual(body.encoding, .json)
        XCTAssertTrue(create.speaksForClient)
        XCTAssertNil(create.timeoutMilliseconds)
        XCTAssertFalse(create.exposeUpstreamErrors)
        let prepared = try body.prepare(json(#"{"name": "Ada", "admin": true}"#), parameters: [:])
        XCTAssertEqual(String(decoding: prepared.bytes, as: UTF8.self), #"{"name":"Ada"}"#)
        XCTAssertThrowsError(try body.prepare(json(#"{"name": ""}"#), parameters: [:])) {
            XCTAssertEqual(($0 as? PipelineError)?.code, "validation-failed")
        }

        let profile = rules.routes[1]
        XCTAssertFalse(profile.isSingleFetch)
        XCTAssertEqual(profile.fetches.map(\.name), ["user", "devices"])
        XCTAssertEqual(profile.fetches.map(\.optional), [false, true])
        XCTAssertEqual(try profile.fetches[1].renderedPath(["id": "u 1"]), "/devices/u%201.json")
        XCTAssertNil(profile.body)
        XCTAssertFalse(profile.speaksForClient)

        let posts = rules.routes[2]
        XCTAssertEqual(posts.pipeline.steps.count, 1, "the steps before expand")
        XCTAssertEqual(posts.stages.count, 1)
        let expand = posts.stages[0].expand
        XCTAssertEqual(expand.key, "authorId")
        XCTAssertEqual(expand.member, "author")
        XCTAssertEqual(expand.fetch.upstream, "firebase")
        XCTAssertEqual(try expand.fetch.renderedPath(["value": "u1"]), "/users/u1.json")
        XCTAssertEqual(expand.concurrency, 8)
        XCTAssertEqual(expand.missing, .null)
        XCTAssertEqual(expand.maxFetches, 100)
        XCTAssertEqual(expand.transform.steps.count, 1)
        XCTAssertEqual(posts.stages[0].then.steps.count, 0)
    }

    func testAFallbackStaysLiteralInATemplateLikeAValue() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a/{id}
                    upstream: api
                    path: /a/{id}.json
                    headers: { X-Fallback: "${UNSET:-f{x}-{id}", X-Value: "${TOKEN:-unused}" }
                    transform: []
                """
        let rules = try XCTUnwrap(loaded([("r.yaml", text)], environment: ["TOKEN": "v}"]))
        XCTAssertEqual(rules.routes[0].headers.map { $0.value(["id": "7"]) }, ["f{x-7", "v}"])
        XCTAssertEqual(rules.routes[0].secrets, ["v}"])
    }

    func testNewKeysAndTheirDefaults() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: PUT /a/{id}
                    upstream: api
                    path: /a/{id}.json
                    headers: { X-Tenant: "t-{id}", X-Token: "${TOKEN}", X-Braces: "{{literal}}" }
                    body: { encoding: form }
                    timeout: 1500ms
                    expose-upstream-errors: true
                    transform:
                      - wrap: one
                      - expand: { key: k, fetch: { upstream: api, path: "/b/{value}/{id}" }, as: b, missing: null }
                      - wrap: two
                      - expand: { key: k2, fetch: { upstream: api, path: "/c/{value}" }, as: c, missing: drop, concurrency: 64, max-fetches: 10000 }
                """
        let rules = try XCTUnwrap(loaded([("r.yaml", text)], environment: ["TOKEN": "s{e}cret"]))
        let route = rules.routes[0]
        XCTAssertEqual(
            route.headers.map { $0.value(["id": "7"]) }, ["t-7", "s{e}cret", "{literal}"],
            "a variable's value stays literal, braces and all")
        XCTAssertEqual(route.secrets, ["s{e}cret"])
        XCTAssertEqual(route.headers[0].value(["id": "x\r\nInjected: 1"]), "t-xInjected: 1", "no CR/LF from a capture")
        XCTAssertEqual(route.body?.encoding, .form)
        XCTAssertNil(route.body?.validator)
        XCTAssertEqual(route.timeoutMilliseconds, 1500)
        XCTAssertTrue(route.exposeUpstreamErrors)
        XCTAssertEqual(route.pipeline.steps.count, 1)
        XCTAssertEqual(route.stages.map(\.expand.member), ["b", "c"])
        XCTAssertEqual(route.stages.map(\.then.steps.count), [1, 0])
        XCTAssertEqual(route.stages.map(\.expand.missing), [.null, .drop])
        XCTAssertEqual(route.stages[1].expand.concurrency, 64)
        XCTAssertEqual(route.stages[1].expand.maxFetches, 10_000)
        XCTAssertEqual(try route.stages[0].expand.fetch.renderedPath(["value": "v", "id": "7"]), "/b/v/7")
    }

    func testNeverForwardedHeaderIsAWarningNotAnError() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a
                    upstream: api
                    path: /a.json
                    forward-headers: [authorization, Connection, Proxy-Authorization]
                    transform: []
                """
        let rules = try XCTUnwrap(loaded([("r.yaml", text)]))
        XCTAssertEqual(rules.routes[0].forwardHeaders, ["authorization", "Connection", "Proxy-Authorization"])
        XCTAssertEqual(
            rules.warnings.map(\.description),
            [
                "r.yaml:9:38: 'Connection' is never forwarded (hop-by-hop, or set by Reshape itself); listing it has no effect",
                "r.yaml:9:50: 'Proxy-Authorization' is never forwarded (hop-by-hop, or set by Reshape itself); listing it has no effect",
            ])
    }

    func testRouteKeyMistakesAreLocated() {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a/{id}
                    upstream: api
                    path: /a.json
                    forward-headers: [Authorization, "bad name", AUTHORIZATION]
                    headers: { "X Bad": v, X-Unknown: "{nope}", X-Unset: "${UNSET}", X-Newline: "a\\nb", Content-Length: "3", authorization: "Bearer x" }
                    body: { type: NewUser }
                    timeout: 5
                    expose-upstream-errors: "yes"
                    transform: []
                  - name: b
                    request: OPTIONS /b
                    fetch:
                      user: { upstream: nowhere, path: "/u/{id}.json" }
                      more: { upstream: api, path: /m.json, optional: maybe, extra: 1 }
                    upstream: api
                    transform: []
                  - name: c
                    request: POST /c
                    fetch: []
                    body: { type: Missing, transform: [ { expand: {} } ], encoding: xml }
                    transform: []
                  - name: d
                    request: GET /d
                    transform: []
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:9:38", contains: "'bad name' is not a valid header name")
        assertDiagnostic(lines, at: "r.yaml:9:50", contains: "header 'AUTHORIZATION' is listed twice")
        assertDiagnostic(lines, at: "r.yaml:10:25", contains: "'X Bad' is not a valid header name")
        assertDiagnostic(
            lines, at: "r.yaml:10:39",
            contains: "header 'X-Unknown': '{nope}' is not captured by the route's request path")
        assertDiagnostic(lines, at: "r.yaml:10:58", contains: "environment variable UNSET is not set")
        assertDiagnostic(lines, at: "r.yaml:10:81", contains: "header 'X-Newline' must not contain CR, LF or NUL")
        assertDiagnostic(lines, at: "r.yaml:10:105", contains: "'Content-Length' cannot be set by a route")
        assertDiagnostic(
            lines, at: "r.yaml:10:125",
            contains: "header 'authorization' is both forwarded from the client (forward-headers) and set here")
        assertDiagnostic(
            lines, at: "r.yaml:11:11", contains: "`body` is only for POST, PUT and PATCH routes (this route is GET)")
        assertDiagnostic(lines, at: "r.yaml:11:19", contains: "unknown type 'NewUser'")
        assertDiagnostic(lines, at: "r.yaml:12:14", contains: "`timeout` must be a duration")
        assertDiagnostic(lines, at: "r.yaml:13:29", contains: "`expose-upstream-errors` must be true or false")

        assertDiagnostic(
            lines, at: "r.yaml:16:14",
            contains: "method 'OPTIONS' is not supported (use GET, POST, PUT, PATCH or DELETE)")
        assertDiagnostic(lines, at: "r.yaml:18:25", contains: "unknown upstream 'nowhere'")
        assertDiagnostic(lines, at: "r.yaml:18:40", contains: "'{id}' is not captured by the request template '/b'")
        assertDiagnostic(lines, at: "r.yaml:19:55", contains: "`optional` must be true or false")
        assertDiagnostic(lines, at: "r.yaml:19:69", contains: "unknown fetch key 'extra'")
        assertDiagnostic(lines, at: "r.yaml:20:15", contains: "either `fetch` or `upstream` and `path`, not both")

        assertDiagnostic(lines, at: "r.yaml:24:12", contains: "`fetch` must map names to { upstream, path, optional }")
        assertDiagnostic(lines, at: "r.yaml:25:19", contains: "unknown type 'Missing'")
        assertDiagnostic(
            lines, at: "r.yaml:25:51", contains: "expand is only allowed at the top level of a route's transform")
        assertDiagnostic(lines, at: "r.yaml:25:69", contains: "`encoding` must be json or form")

        assertDiagnostic(lines, at: "r.yaml:27:5", contains: "route 'd' needs `upstream` and `path`, or `fetch`")
    }

    func testHeadAndLowercaseMethodsAreRefusedClearly() {
        let text =
            plainUpstream + """
                routes:
                  - { name: a, request: HEAD /a, upstream: api, path: /a.json, transform: [] }
                """
        assertDiagnostic(
            diagnostics([("r.yaml", text)]), at: "r.yaml:5:25",
            contains:
                "method 'HEAD' is not supported (use GET, POST, PUT, PATCH or DELETE; HEAD requests are answered by GET routes)"
        )
    }

    func testExpandMistakesAreLocated() {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a/{id}
                    upstream: api
                    path: /a.json
                    transform:
                      - each: [ { expand: { key: k } } ]
                      - at: { path: /x, do: [ { expand: {} } ] }
                      - expand:
                          key: 3
                          fetch: { upstream: nowhere, path: "/u/{value}/{other}.json", method: GET }
                          concurrency: 65
                          max-fetches: 0
                          missing: skip
                          transform: [ { expand: {} }, { wrapp: x } ]
                          extra: 1
                      - expand: { key: k, as: m, fetch: { upstream: api, path: /fixed.json } }
                      - expand: { key: k, fetch: { upstream: api, path: "/u/{value}" } }
                      - expand: { key: k, as: m }
                """
        let lines = diagnostics([("r.yaml", text)])
        let topLevel = "expand is only allowed at the top level of a route's transform"
        assertDiagnostic(lines, at: "r.yaml:10:27", contains: topLevel)
        assertDiagnostic(lines, at: "r.yaml:11:41", contains: topLevel)
        assertDiagnostic(lines, at: "r.yaml:13:16", contains: "`key` must be a non-empty string")
        assertDiagnostic(lines, at: "r.yaml:13:11", contains: "expand is missing `as`")
        assertDiagnostic(lines, at: "r.yaml:14:30", contains: "unknown upstream 'nowhere'")
        assertDiagnostic(
            lines, at: "r.yaml:14:45", contains: "'{other}' is not captured by the request template '/a/{id}'")
        assertDiagnostic(lines, at: "r.yaml:14:80", contains: "unknown expand fetch key 'method'")
        assertDiagnostic(lines, at: "r.yaml:15:24", contains: "`concurrency` must be a whole number from 1 to 64")
        assertDiagnostic(lines, at: "r.yaml:16:24", contains: "`max-fetches` must be a whole number from 1 to 10000")
        assertDiagnostic(lines, at: "r.yaml:17:20", contains: "`missing` must be \"null\", drop or fail")
        assertDiagnostic(lines, at: "r.yaml:18:34", contains: topLevel)
        assertDiagnostic(lines, at: "r.yaml:18:49", contains: "unknown operation 'wrapp'")
        assertDiagnostic(lines, at: "r.yaml:19:18", contains: "unknown expand key 'extra'")
        assertDiagnostic(lines, at: "r.yaml:20:64", contains: "expand's fetch path must use {value}")
        assertDiagnostic(lines, at: "r.yaml:21:17", contains: "expand is missing `as`")
        assertDiagnostic(lines, at: "r.yaml:22:17", contains: "expand is missing `fetch`")
    }

    func testMissingOrEmptyUpstreamAndPathAreLocated() {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a
                    transform: []
                  - name: b
                    request: GET /b
                    upstream: ""
                    path: 3
                    transform: []
                  - name: c
                    request: GET /c
                    upstream: api
                    path: /c.json
                    transform:
                      - expand: { key: k, as: m, fetch: {} }
                """
        XCTAssertEqual(
            diagnostics([("r.yaml", text)]),
            [
                "r.yaml:5:5: route 'a' needs `upstream` and `path`, or `fetch`",
                "r.yaml:10:15: `upstream` must be a non-empty string",
                "r.yaml:11:11: `path` must be a non-empty string",
                "r.yaml:18:41: expand's fetch is missing `upstream`",
                "r.yaml:18:41: expand's fetch is missing `path`",
            ])
    }

    func testExampleMistakesAreLocated() {
        let text =
            plainUpstream + """
                routes:
                  - name: p
                    request: GET /p
                    fetch:
                      user: { upstream: api, path: /u.json }
                      devices: { upstream: api, path: /d.json, optional: true }
                    transform: []
                    examples:
                      - upstream: { devices: [] }
                        response: {}
                      - upstream: { user: {}, phones: [] }
                        request-body: {}
                        follow-ups: { /x.json: 1 }
                        response: {}
                      - upstream: []
                        response: {}
                  - name: w
                    request: POST /w
                    upstream: api
                    path: /w.json
                    body: { encoding: form }
                    transform:
                      - expand: { key: k, as: m, fetch: { upstream: api, path: "/u/{value}" } }
                    examples:
                      - request-body: { a: 1 }
                        sends: { a: 1 }
                        error: validation-failed
                      - request-body: { a: 1 }
                        follow-ups: { x.json: 1 }
                        response: {}
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:12:19", contains: "no body for the required fetch 'user'")
        assertDiagnostic(
            lines, at: "r.yaml:14:39", contains: "unknown fetch 'phones' (the route fetches user, devices)")
        assertDiagnostic(lines, at: "r.yaml:15:23", contains: "`request-body` is only for routes with `body`")
        assertDiagnostic(
            lines, at: "r.yaml:16:21", contains: "`follow-ups` are for routes whose transform has an `expand`")
        assertDiagnostic(lines, at: "r.yaml:18:19", contains: "on a `fetch:` route, `upstream` maps fetch names")
        assertDiagnostic(lines, at: "r.yaml:29:16", contains: "with `encoding: form`, `sends` is the encoded text")
        assertDiagnostic(lines, at: "r.yaml:31:9", contains: "an example needs `upstream`")
        assertDiagnostic(
            lines, at: "r.yaml:32:31", contains: "a follow-up is named by its upstream path, starting with '/'")
    }
}
