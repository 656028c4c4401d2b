import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// Issue 25: without a top-level `cors`, nothing changes; a browser's preflight is the 405 it was.
final class CORSWithoutPolicyTests: XCTestCase {
    func testAPreflightToRulesWithoutCORSIsTheOld405() {
        let route = Route(
            name: "users", method: "GET", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            pipeline: Pipeline(steps: []), location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d"))
        var request = HTTPRequest(method: "OPTIONS", target: "/users")
        request.headers = [
            NameValue(name: "Origin", value: "https://app.example.com"),
            NameValue(name: "Access-Control-Request-Method", value: "GET"),
        ]
        XCTAssertNil(rules.corsPreflight(request, endpoints: .all))
        guard case .respond(let response, _, let code) = rules.decide(request) else { return XCTFail() }
        XCTAssertEqual(response.status, 405)
        XCTAssertEqual(code, "method-not-allowed")
        XCTAssertFalse(response.headers.contains { $0.name.hasPrefix("Access-Control-") })
    }
}
