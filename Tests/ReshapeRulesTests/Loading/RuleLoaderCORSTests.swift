import ReshapeRules
import XCTest

/// The top-level `cors:` and a route's `cors:` (issue 25's rule-file contract).
final class RuleLoaderCORSTests: XCTestCase {
    private let route = """
        routes:
          - { name: users, request: GET /users, upstream: api, path: /users.json, transform: [] }

        """

    func testTheIssueExampleLoads() throws {
        let text =
            plainUpstream + """
                cors:
                  origins: ["https://app.example.com", "https://*.example.com"]
                  credentials: false
                  max-age: 10m
                  expose-headers: [ETag, Link, Retry-After, Reshape-Dropped, Reshape-Cache]

                routes:
                  - { name: users, request: GET /users, upstream: api, path: /users.json, transform: [] }
                  - name: admin-report
                    request: GET /report
                    upstream: api
                    path: /report.json
                    cors: false
                    transform: []
                  - name: own
                    request: GET /own
                    upstream: api
                    path: /own.json
                    cors: { origins: ["*"], max-age: 30s }
                    transform: []
                """
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", text)]))
        let policy = try XCTUnwrap(ruleSet.cors)
        XCTAssertEqual(
            policy.origins,
            .listed([
                CORSOrigin(scheme: "https", host: .exact("app.example.com")),
                CORSOrigin(scheme: "https", host: .subdomains(of: "example.com")),
            ]))
        XCTAssertFalse(policy.credentials)
        XCTAssertEqual(policy.maxAgeSeconds, 600)
        XCTAssertEqual(policy.exposeHeaders, ["ETag", "Link", "Retry-After", "Reshape-Dropped", "Reshape-Cache"])
        XCTAssertEqual(
            ruleSet.routes.map(\.cors), [.inherited, .off, .own(CORSPolicy(origins: .any, maxAgeSeconds: 30))])
        XCTAssertEqual(ruleSet.routes.map { $0.cors.policy(topLevel: ruleSet.cors)?.maxAgeSeconds }, [600, nil, 30])
    }

    func testWithoutCORSNothingIsAllowed() throws {
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", plainUpstream + route)]))
        XCTAssertNil(ruleSet.cors)
        XCTAssertNil(ruleSet.routes[0].cors.policy(topLevel: ruleSet.cors))
    }

    func testStarWithCredentialsIsRefused() {
        let text = plainUpstream + "cors:\n  origins: [\"*\"]\n  credentials: true\n" + route
        assertDiagnostic(diagnostics([("r.yaml", text)]), at: "r.yaml:6:16", contains: "cannot go with origins [\"*\"]")
    }

    func testOriginsThatAreNotOriginsAreRefused() {
        let bad = [
            "https://app.example.com/", "https://app.example.com/path", "app.example.com", "https://",
            "https://user@app.example.com", "https://app.example.com:0", "https://app.example.com:99999",
            "https://*.", "https://a.*.example.com", "https://app..example.com", "null",
        ]
        for origin in bad {
            let text = plainUpstream + "cors:\n  origins: [\"https://ok.example.com\", \"\(origin)\"]\n" + route
            assertDiagnostic(
                diagnostics([("r.yaml", text)]), at: "r.yaml:5:39", contains: "'\(origin)' is not an origin")
        }
    }

    func testGoodOriginsLoad() throws {
        let good = [
            "http://127.0.0.1:18303", "https://app.example.com", "https://*.example.com", "http://localhost:3000",
            "http://[::1]:8080", "HTTPS://App.Example.com", "https://*.example.com:8443",
        ]
        for origin in good {
            let text = plainUpstream + "cors:\n  origins: [\"\(origin)\"]\n" + route
            XCTAssertNotNil(loaded([("r.yaml", text)])?.cors, origin)
        }
    }

    func testStarMustStandAlone() {
        let text = plainUpstream + "cors:\n  origins: [\"https://a.example.com\", \"*\"]\n" + route
        assertDiagnostic(diagnostics([("r.yaml", text)]), at: "r.yaml:5:38", contains: "must be the only one listed")
    }

    func testUnknownKeysAreRefused() {
        let text = plainUpstream + "cors:\n  origins: [\"*\"]\n  allow-headers: [X-Any]\n" + route
        assertDiagnostic(
            diagnostics([("r.yaml", text)]), at: "r.yaml:6:18", contains: "unknown cors key 'allow-headers'")
        let inRoute =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    cors: { origins: ["*"], methods: [GET] }
                    transform: []
                """
        assertDiagnostic(diagnostics([("r.yaml", inRoute)]), at: "r.yaml:9:38", contains: "unknown cors key 'methods'")
    }

    func testMissingOriginsAndBadValuesAreRefused() {
        let text =
            plainUpstream + "cors:\n  credentials: maybe\n  max-age: 0s\n  expose-headers: [\"Bad Name\"]\n" + route
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:5:3", contains: "`cors` needs `origins`")
        assertDiagnostic(lines, at: "r.yaml:5:16", contains: "`credentials` must be true or false")
        assertDiagnostic(lines, at: "r.yaml:6:12", contains: "`max-age` must be a duration")
        assertDiagnostic(lines, at: "r.yaml:7:20", contains: "'Bad Name' is not a valid header name")
        let notMapping = plainUpstream + "cors: true\n" + route
        assertDiagnostic(diagnostics([("r.yaml", notMapping)]), at: "r.yaml:4:7", contains: "`cors` must be a mapping")
        let empty = plainUpstream + "cors: { origins: [] }\n" + route
        assertDiagnostic(diagnostics([("r.yaml", empty)]), at: "r.yaml:4:18", contains: "non-empty list")
    }

    func testASecondTopLevelCORSIsRefused() {
        let first = plainUpstream + "cors: { origins: [\"*\"] }\n" + route
        let second = "cors: { origins: [\"https://a.example.com\"] }\n"
        assertDiagnostic(
            diagnostics([("a.yaml", first), ("b.yaml", second)]), at: "b.yaml:1:7", contains: "`cors` is set twice")
    }

    func testOriginMatching() throws {
        let exact = try XCTUnwrap(CORSOrigin.parse("https://app.example.com"))
        XCTAssertTrue(exact.matches("https://app.example.com"))
        XCTAssertTrue(exact.matches("HTTPS://APP.example.com"))
        XCTAssertFalse(exact.matches("http://app.example.com"))
        XCTAssertFalse(exact.matches("https://app.example.com:8443"))
        XCTAssertFalse(exact.matches("https://app.example.com.evil.test"))
        XCTAssertFalse(exact.matches("null"))
        let wildcard = try XCTUnwrap(CORSOrigin.parse("https://*.example.com"))
        XCTAssertTrue(wildcard.matches("https://a.example.com"))
        XCTAssertTrue(wildcard.matches("https://a.b.example.com"))
        XCTAssertFalse(wildcard.matches("https://example.com"), "the domain itself is not one of its subdomains")
        XCTAssertFalse(wildcard.matches("https://evilexample.com"))
        XCTAssertFalse(wildcard.matches("https://a.example.com.evil.test"))
        XCTAssertFalse(wildcard.matches("http://a.example.com"))
        let ported = try XCTUnwrap(CORSOrigin.parse("http://127.0.0.1:18303"))
        XCTAssertTrue(ported.matches("http://127.0.0.1:18303"))
        XCTAssertFalse(ported.matches("http://127.0.0.1:18304"))
        XCTAssertFalse(ported.matches("http://127.0.0.1"))
    }
}
