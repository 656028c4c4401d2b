import ReshapeRules
import XCTest

/// `cache: { upstream-cache-control: honor | ignore }`, as issue 28 writes it, and the warning
/// for a route that would never cache in front of Firebase.
final class RuleLoaderCacheControlTests: XCTestCase {
    private let rules = """
        upstreams:
          firebase: { url: "https://my-app.firebaseio.com" }
          regional: { url: "https://my-app-default-rtdb.europe-west1.firebasedatabase.app" }
          api: { url: "http://127.0.0.1:8081" }
        routes:
          - { name: a, request: "GET /a", upstream: firebase, path: /a.json, cache: { ttl: 30s, upstream-cache-control: ignore }, transform: [] }
          - { name: b, request: "GET /b", upstream: firebase, path: /b.json, cache: { ttl: 30s }, transform: [] }
          - { name: c, request: "GET /c", upstream: regional, path: /c.json, cache: { ttl: 30s, upstream-cache-control: honor }, transform: [] }
          - { name: d, request: "GET /d", upstream: api, path: /d.json, cache: { ttl: 30s, upstream-cache-control: honor }, transform: [] }
        """

    func testTheSettingLoadsAndFirebaseHostsAreKnown() throws {
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", rules)]))
        XCTAssertEqual(ruleSet.routes.map(\.cache?.upstreamCacheControl), [.ignore, nil, .honor, .honor])
        XCTAssertEqual(ruleSet.upstreams["firebase"]?.isFirebaseHost, true)
        XCTAssertEqual(ruleSet.upstreams["regional"]?.isFirebaseHost, true)
        XCTAssertEqual(ruleSet.upstreams["api"]?.isFirebaseHost, false)
    }

    func testHonorInFrontOfFirebaseIsWarnedAboutAtTheSetting() throws {
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", rules)]))
        let warnings = ruleSet.warnings.map(\.description)
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings[0].hasPrefix("r.yaml:8:"), warnings[0])
        XCTAssertTrue(warnings[0].contains("upstream 'regional' is a Firebase host"), warnings[0])
        XCTAssertTrue(warnings[0].contains("never cached"), warnings[0])
    }

    func testABadValueIsLocated() {
        let lines = diagnostics([
            (
                "r.yaml",
                plainUpstream + """
                    routes:
                      - { name: a, request: "GET /a", upstream: api, path: /a.json, cache: { ttl: 30s, upstream-cache-control: never }, transform: [] }
                    """
            )
        ])
        assertDiagnostic(lines, at: "r.yaml:5:108", contains: "`upstream-cache-control` must be honor or ignore")
    }
}
