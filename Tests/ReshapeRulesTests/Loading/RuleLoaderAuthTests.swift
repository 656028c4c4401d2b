import ReshapeAuth
import ReshapeRules
import XCTest

/// The top-level `auth:` verifiers, a route's `auth`, `{auth.<claim>}` templates and the route
/// `query:` map, as issue 28 writes them.
final class RuleLoaderAuthTests: XCTestCase {
    static let verifier = """
        auth:
          app-users:
            jwks: https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com
            issuer: https://securetoken.google.com/my-app
            audience: my-app
            algorithms: [RS256]
            leeway: 30s

        """

    func testTheIssueExampleLoads() throws {
        let text =
            plainUpstream + Self.verifier + """
                routes:
                  - name: my-profile
                    request: GET /me
                    auth: app-users
                    upstream: api
                    path: /users/{auth.sub}.json
                    cache: { ttl: 30s }
                    transform: []
                  - name: my-orders
                    request: GET /orders
                    auth: { verifier: app-users, require: { email_verified: true } }
                    upstream: api
                    path: /orders.json
                    headers: { X-User: "user-{auth.sub}", X-Tier: "{auth.tier}" }
                    query: { orderBy: '"owner"', equalTo: '"{auth.sub}"' }
                    transform: []
                """
        let rules = try XCTUnwrap(loaded([("a.yaml", text)]))
        let verifier = try XCTUnwrap(rules.verifiers["app-users"])
        XCTAssertEqual(verifier.jwks.scheme, "https")
        XCTAssertEqual(verifier.jwks.host, "www.googleapis.com")
        XCTAssertEqual(
            verifier.jwks.basePath, "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
        XCTAssertEqual(verifier.verifier.issuer, "https://securetoken.google.com/my-app")
        XCTAssertEqual(verifier.verifier.audience, "my-app")
        XCTAssertEqual(verifier.verifier.algorithms, [.rs256])
        XCTAssertEqual(verifier.verifier.leewaySeconds, 30)

        let profile = try XCTUnwrap(rules.routes.first { $0.name == "my-profile" })
        XCTAssertEqual(profile.auth?.verifier, "app-users")
        XCTAssertEqual(profile.auth?.claims, ["sub"])
        XCTAssertEqual(profile.varyHeaders, ["Authorization"])
        XCTAssertTrue(profile.readsAuthorization)

        let orders = try XCTUnwrap(rules.routes.first { $0.name == "my-orders" })
        XCTAssertEqual(orders.auth?.claims, ["sub", "tier"], "every claim its templates name, once")
        XCTAssertEqual(orders.auth?.require.map(\.claim), ["email_verified"])
        XCTAssertEqual(orders.upstreamQuery.map(\.name), ["orderBy", "equalTo"])
        XCTAssertEqual(orders.upstreamQuery[1].queryValue(["auth.sub": "u1"]), #""u1""#)
    }

    func testClaimsASetStepNamesArePartOfTheRoutesClaims() throws {
        let text =
            plainUpstream + Self.verifier + """
                routes:
                  - name: me
                    request: GET /me
                    auth: app-users
                    upstream: api
                    path: /users/{auth.sub}.json
                    transform:
                      - set: { objectId: "{auth.sub}", contact: "{auth.email}", literal: "{{auth.tier}}" }
                  - name: open
                    request: GET /open
                    upstream: api
                    path: /open.json
                    transform: [ { set: { who: "{auth.sub}" } } ]
                """
        let lines = diagnostics([("a.yaml", text)])
        XCTAssertEqual(lines.count, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[0].contains("'{auth.sub}' names a verified token's claim, but the route has no `auth`"))
        let fixed = text.replacingOccurrences(
            of: "transform: [ { set: { who: \"{auth.sub}\" } } ]", with: "transform: []")
        let me = try XCTUnwrap(loaded([("a.yaml", fixed)])?.routes.first)
        XCTAssertEqual(me.auth?.claims, ["email", "sub"], "an escaped {{auth.tier}} is text, not a claim")
    }

    func testDefaultsAreBothAsymmetricAlgorithmsAndThirtySecondsOfLeeway() throws {
        let text =
            plainUpstream + """
                auth:
                  users: { jwks: "http://127.0.0.1:9/keys", issuer: me, audience: you }
                """
        let verifier = try XCTUnwrap(loaded([("a.yaml", text)])?.verifiers["users"])
        XCTAssertEqual(verifier.verifier.algorithms, [.rs256, .es256])
        XCTAssertEqual(verifier.verifier.leewaySeconds, 30)
        XCTAssertEqual(verifier.jwks.port, 9)
        XCTAssertEqual(verifier.jwks.basePath, "/keys")
    }

    func testEveryBadVerifierIsLocated() {
        let text =
            plainUpstream + """
                auth:
                  nothing: {}
                  bad:
                    jwks: ftp://keys.example.com/jwks
                    issuer: ""
                    audience: my-app
                    algorithms: [RS256, HS256, none]
                    leeway: soon
                    refresh: 5m
                  scalar: yes
                """
        let lines = diagnostics([("a.yaml", text)])
        assertDiagnostic(lines, at: "a.yaml:5:12", contains: "verifier 'nothing' is missing `jwks`")
        assertDiagnostic(lines, at: "a.yaml:5:12", contains: "verifier 'nothing' is missing `issuer`")
        assertDiagnostic(lines, at: "a.yaml:5:12", contains: "verifier 'nothing' is missing `audience`")
        assertDiagnostic(lines, at: "a.yaml:7:11", contains: "invalid `jwks` url: the scheme must be http or https")
        assertDiagnostic(lines, at: "a.yaml:8:13", contains: "`issuer` must be a non-empty string")
        assertDiagnostic(lines, at: "a.yaml:10:25", contains: "unknown algorithm 'HS256' (`none` and HMAC are never")
        assertDiagnostic(lines, at: "a.yaml:10:32", contains: "unknown algorithm 'none' (`none` and HMAC are never")
        assertDiagnostic(lines, at: "a.yaml:11:13", contains: "`leeway` must be a duration")
        assertDiagnostic(lines, at: "a.yaml:12:14", contains: "unknown auth key 'refresh'")
        assertDiagnostic(lines, at: "a.yaml:13:11", contains: "verifier 'scalar' must be a mapping")
        XCTAssertEqual(lines.count, 10, lines.joined(separator: "\n"))
    }

    func testARouteNamingNoVerifierOrClaimsWithoutAuthIsRefused() {
        let text =
            plainUpstream + Self.verifier + """
                routes:
                  - name: unknown
                    request: GET /a
                    auth: admins
                    upstream: api
                    path: /a.json
                    transform: []
                  - name: claims-without-auth
                    request: GET /b
                    upstream: api
                    path: /users/{auth.sub}.json
                    headers: { X-User: "{auth.sub}" }
                    query: { owner: "{auth.uid}" }
                    transform: []
                  - name: bad-claim
                    request: GET /c
                    auth: { verifier: app-users, require: { roles: [admin] }, strict: true }
                    upstream: api
                    path: /users/{auth.a b}.json
                    transform: []
                """
        let lines = diagnostics([("a.yaml", text)])
        assertDiagnostic(lines, at: "a.yaml:14:11", contains: "unknown verifier 'admins' (defined: app-users)")
        assertDiagnostic(
            lines, at: "a.yaml:21:11",
            contains: "'{auth.sub}' names a verified token's claim, but the route has no `auth`")
        assertDiagnostic(
            lines, at: "a.yaml:22:24", contains: "header 'X-User': '{auth.sub}' names a verified token's claim")
        assertDiagnostic(lines, at: "a.yaml:23:21", contains: "query parameter 'owner': '{auth.uid}' names a verified")
        assertDiagnostic(lines, at: "a.yaml:27:71", contains: "unknown auth key 'strict'")
        assertDiagnostic(
            lines, at: "a.yaml:27:52", contains: "a required claim's value must be a string, a number or a boolean")
        assertDiagnostic(lines, at: "a.yaml:29:11", contains: "is not a valid capture name")
        XCTAssertEqual(lines.count, 7, lines.joined(separator: "\n"))
    }

    func testTheQueryMapRefusesNamesTheClientAlsoSends() {
        let text =
            plainUpstream + """
                routes:
                  - name: both
                    request: GET /a/{id}
                    upstream: api
                    path: /a.json
                    forward-query: [page]
                    firebase-query: true
                    query: { page: "1", orderBy: '"$key"', id: "{id}", list: [1], missing: "{nope}", secret: "${TOKEN}" }
                    transform: []
                """
        let lines = diagnostics([("a.yaml", text)], environment: ["TOKEN": "s3cret"])
        assertDiagnostic(
            lines, at: "a.yaml:11:20", contains: "'page' is both forwarded from the client (forward-query)")
        assertDiagnostic(
            lines, at: "a.yaml:11:34", contains: "'orderBy' is the client's on a route with `firebase-query: true`")
        assertDiagnostic(lines, at: "a.yaml:11:62", contains: "query parameter 'list' must be a string")
        assertDiagnostic(lines, at: "a.yaml:11:76", contains: "'{nope}' is not captured by the route's request path")
        XCTAssertEqual(lines.count, 4, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.joined().contains("s3cret"))
    }

    func testAQueryValueFromTheEnvironmentIsASecret() throws {
        let text =
            plainUpstream + """
                routes:
                  - { name: r, request: "GET /r/{id}", upstream: api, path: /r.json, query: { key: "${KEY}", id: "{id}" }, transform: [] }
                """
        let route = try XCTUnwrap(loaded([("a.yaml", text)], environment: ["KEY": "k{1}"])?.routes.first)
        XCTAssertEqual(route.secrets, ["k{1}"])
        XCTAssertEqual(route.upstreamQuery.map { $0.queryValue(["id": "7"]) }, ["k{1}", "7"])
        XCTAssertNil(route.auth)
        XCTAssertEqual(route.varyHeaders, [])
    }
}

extension RuleLoaderAuthTests {
    func testAClientCaptureCannotBeNamedLikeAClaim() {
        let text =
            plainUpstream + """
                routes:
                  - { name: spoof, request: "GET /users/{auth.sub}", upstream: api, path: "/users/{auth.sub}.json", transform: [] }
                """
        let lines = diagnostics([("a.yaml", text)])
        XCTAssertTrue(
            lines.contains { $0.contains("'{auth.sub}' names a verified token's claim, which a client cannot send") },
            lines.joined(separator: "\n"))
    }
}
