import ReshapeRules
import XCTest

/// The top-level `limits:` policies and a route's `limit:`, as issue 29 writes them, and what
/// `reshape check` refuses, each at its `file:line:column`.
final class RuleLoaderLimitTests: XCTestCase {
    static let policies = """
        limits:
          per-user: { rate: 10/s, burst: 20, key: auth.sub }
          per-key:  { rate: 1000/m, key: header.X-Api-Key }
          per-address: { rate: 50/s, burst: 100, key: client-address }
          per-item: { rate: 5/h, key: "{id}" }
          per-page: { rate: 3/s, key: query.page }
        auth:
          app-users:
            jwks: https://keys.example.com/jwks.json
            issuer: https://issuer.example.com
            audience: my-app

        """

    func testTheIssueExampleLoads() throws {
        let text =
            plainUpstream + Self.policies + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    limit: [per-address, per-key]
                    transform: []
                  - name: item
                    request: GET /items/{id}
                    auth: app-users
                    upstream: api
                    path: /items/{id}.json
                    limit: [per-user, per-item, per-page]
                    transform: []
                """
        let rules = try XCTUnwrap(loaded([("a.yaml", text)]))
        XCTAssertEqual(
            rules.limits["per-user"],
            LimitPolicy(
                name: "per-user", count: 10, intervalSeconds: 1, burst: 20, key: .auth("sub"),
                location: rules.limits["per-user"]!.location))
        XCTAssertEqual(rules.limits["per-key"]?.count, 1000)
        XCTAssertEqual(rules.limits["per-key"]?.intervalSeconds, 60)
        XCTAssertEqual(rules.limits["per-key"]?.burst, 1000, "burst defaults to the per-interval count")
        XCTAssertEqual(rules.limits["per-key"]?.key, .header("X-Api-Key"))
        XCTAssertEqual(rules.limits["per-address"]?.key, .clientAddress)
        XCTAssertEqual(rules.limits["per-item"]?.key, .capture("id"))
        XCTAssertEqual(rules.limits["per-item"]?.intervalSeconds, 3600)
        XCTAssertEqual(rules.limits["per-page"]?.key, .query("page"))
        XCTAssertEqual(rules.routes.first { $0.name == "users" }?.limit, ["per-address", "per-key"])
        let item = try XCTUnwrap(rules.routes.first { $0.name == "item" })
        XCTAssertEqual(item.limit, ["per-user", "per-item", "per-page"])
        XCTAssertEqual(item.auth?.claims, [], "a limit's claim is no template parameter: the cache key stays shared")
    }

    func testCheckRefusesBadPoliciesAndRouteLimits() {
        let text =
            plainUpstream + """
                limits:
                  no-rate: { key: client-address }
                  bad-rate: { rate: 10/d, key: client-address }
                  zero: { rate: 0/s, key: client-address }
                  bad-burst: { rate: 10/s, burst: 0, key: client-address }
                  bad-key: { rate: 10/s, key: "user-{id}" }
                  extra: { rate: 10/s, key: client-address, window: 1s }
                  per-user: { rate: 10/s, key: auth.sub }
                  per-item: { rate: 10/s, key: "{id}" }
                routes:
                  - name: plain
                    request: GET /plain/{name}
                    upstream: api
                    path: /plain.json
                    limit: [per-user, per-item, nowhere, bad-rate, per-item]
                    transform: []
                  - name: scalar
                    request: GET /scalar
                    upstream: api
                    path: /scalar.json
                    limit: per-item
                    transform: []
                """
        let lines = diagnostics([("a.yaml", text)])
        assertDiagnostic(lines, at: "a.yaml:5:12", contains: "limit 'no-rate' is missing `rate`")
        assertDiagnostic(lines, at: "a.yaml:6:21", contains: "`rate` must be a count per second, minute or hour")
        assertDiagnostic(lines, at: "a.yaml:7:17", contains: "found '0/s'")
        assertDiagnostic(lines, at: "a.yaml:8:35", contains: "`burst` must be a whole number")
        assertDiagnostic(lines, at: "a.yaml:9:31", contains: "`key` must be client-address, header.NAME")
        assertDiagnostic(lines, at: "a.yaml:10:53", contains: "unknown limit key 'window'")
        assertDiagnostic(lines, at: "a.yaml:18:13", contains: "keyed by auth.sub, but the route has no `auth`")
        assertDiagnostic(
            lines, at: "a.yaml:18:23",
            contains: "keyed by {id}, which the route's request does not capture (it captures {name})")
        assertDiagnostic(lines, at: "a.yaml:18:33", contains: "unknown limit policy 'nowhere' (defined: ")
        assertDiagnostic(lines, at: "a.yaml:18:52", contains: "policy 'per-item' is listed twice")
        assertDiagnostic(lines, at: "a.yaml:24:12", contains: "`limit` must be a non-empty list of policy names")
        XCTAssertFalse(lines.contains { $0.contains("'bad-rate'") && $0.contains("unknown") }, "\(lines)")
        XCTAssertEqual(lines.count, 11, lines.joined(separator: "\n"))
    }

    func testCheckRefusesRatesFasterThanOnePerMicrosecond() {
        let text =
            plainUpstream + """
                limits:
                  fastest: { rate: 1000000/s, key: client-address }
                  too-fast: { rate: 2000001/s, key: client-address }
                  per-minute: { rate: 60000001/m, key: client-address }
                """
        let lines = diagnostics([("a.yaml", text)])
        assertDiagnostic(
            lines, at: "a.yaml:6:21", contains: "`rate` may be at most 1000000 per second (found '2000001/s')")
        assertDiagnostic(lines, at: "a.yaml:7:23", contains: "found '60000001/m'")
        XCTAssertEqual(lines.count, 2, lines.joined(separator: "\n"))
    }

    func testUnknownTopLevelKeyNamesLimits() {
        let lines = diagnostics([("a.yaml", plainUpstream + "limit:\n  a: { rate: 1/s, key: client-address }\n")])
        XCTAssertTrue(
            lines.contains { $0.contains("(expected upstreams, types, routes, auth, cors or limits)") }, "\(lines)")
    }

    func testARouteWithoutPoliciesNamesNone() {
        let lines = diagnostics([
            (
                "a.yaml",
                plainUpstream + """
                    routes:
                      - { name: r, request: GET /r, upstream: api, path: /r.json, limit: [p], transform: [] }
                    """
            )
        ])
        XCTAssertTrue(
            lines.contains { $0.contains("unknown limit policy 'p' (no `limits:` policies are defined)") }, "\(lines)")
    }
}
