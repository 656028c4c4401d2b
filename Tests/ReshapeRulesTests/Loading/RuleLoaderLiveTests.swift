import ReshapeRules
import XCTest

/// A route's `live:` key (issue 20's rule-file contract).
final class RuleLoaderLiveTests: XCTestCase {
    func testTheIssueExampleLoadsWithDefaults() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    live: true                 # also answers Accept: text/event-stream
                    transform:
                      - keyed-to-array: { key: objectId, order: key }
                      - wrap: objects
                """
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", text)]))
        let route = try XCTUnwrap(ruleSet.routes.first)
        XCTAssertEqual(ruleSet.warnings.map(\.description), [], "serve streams live routes: nothing to warn about")
        XCTAssertEqual(
            route.live, LivePolicy(keepAliveMilliseconds: 15_000, maxSubscribers: 10_000, bufferBytes: 1 << 20))
    }

    func testTheMappingFormSetsEachLimit() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    live: { keep-alive: 5s, max-subscribers: 20, buffer: 64KiB }
                    transform: []
                """
        let route = try XCTUnwrap(loaded([("r.yaml", text)])?.routes.first)
        XCTAssertEqual(route.live, LivePolicy(keepAliveMilliseconds: 5_000, maxSubscribers: 20, bufferBytes: 65_536))
    }

    func testFalseAndAbsentAreNotLive() throws {
        let text =
            plainUpstream + """
                routes:
                  - { name: a, request: GET /a, upstream: api, path: /a.json, live: false, transform: [] }
                  - { name: b, request: GET /b, upstream: api, path: /b.json, transform: [] }
                """
        let routes = try XCTUnwrap(loaded([("r.yaml", text)])?.routes)
        XCTAssertEqual(routes.map { $0.live == nil }, [true, true])
    }

    func testALiveRouteThatCannotStreamIsReportedAtTheKey() {
        let text =
            plainUpstream + """
                routes:
                  - name: write
                    request: POST /users
                    upstream: api
                    path: /users.json
                    live: true
                    transform: []
                  - name: fanout
                    request: GET /both
                    fetch:
                      a: { upstream: api, path: /a.json }
                      b: { upstream: api, path: /b.json }
                    live: true
                    transform: []
                  - name: expanded
                    request: GET /posts
                    upstream: api
                    path: /posts.json
                    live: { keep-alive: 10s }
                    transform:
                      - keyed-to-array: { key: postId }
                      - expand: { key: authorId, fetch: { upstream: api, path: "/users/{value}.json" }, as: author }
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:9:5", contains: "`live` is only for GET routes")
        assertDiagnostic(lines, at: "r.yaml:16:5", contains: "`live` needs one upstream fetch")
        assertDiagnostic(lines, at: "r.yaml:22:5", contains: "`live` cannot follow an `expand`")
    }

    func testBadValuesAndUnknownKeysAreLocated() {
        let text =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    live: { keep-alive: often, max-subscribers: 0, buffer: lots, replay: true }
                    transform: []
                  - { name: b, request: GET /b, upstream: api, path: /b.json, live: yes, transform: [] }
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:9:25", contains: "`keep-alive` must be a duration")
        assertDiagnostic(lines, at: "r.yaml:9:49", contains: "`max-subscribers` must be a whole number above 0")
        assertDiagnostic(lines, at: "r.yaml:9:60", contains: "`buffer` must be a size")
        assertDiagnostic(lines, at: "r.yaml:9:74", contains: "unknown live key 'replay'")
        assertDiagnostic(lines, at: "r.yaml:11:69", contains: "`live` must be true, false or a mapping")
    }
}
