import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The per-request decision the server takes before any I/O: answer now, fetch, or admin.
final class ServingRulesTests: XCTestCase {
    private let rules = ServingRules(
        RuleSet(
            upstreams: ["api": makeUpstream(query: [NameValue(name: "auth", value: "s3cret")], secrets: ["s3cret"])],
            routes: [makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json")],
            digest: "d1"))

    private func decide(_ method: String, _ target: String) -> ServingRules.Decision {
        rules.decide(HTTPRequest(method: method, target: target))
    }

    func testAMatchingRequestGoesToItsRouteWithItsParameters() {
        guard case .route(let route, let parameters) = decide("GET", "/users/u%201?print=pretty") else {
            return XCTFail()
        }
        XCTAssertEqual(route.name, "user")
        XCTAssertEqual(parameters, ["id": "u 1"])
    }

    func testUnknownPathsAreNoRoute() {
        guard case .respond(let response, let route, let code) = decide("GET", "/posts") else { return XCTFail() }
        XCTAssertEqual(response.status, 404)
        XCTAssertNil(route)
        XCTAssertEqual(code, "no-route")
    }

    func testAdminPathsGoToTheServer() {
        guard case .admin("ready") = decide("GET", "/_reshape/ready") else { return XCTFail() }
    }

    func testWithASeparateAdminPortAdminPathsAreNoRouteOnThePublicOne() {
        let request = HTTPRequest(method: "GET", target: "/_reshape/ready")
        guard case .respond(let response, nil, "no-route") = rules.decide(request, endpoints: .routes) else {
            return XCTFail()
        }
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.headers.first?.value, "application/problem+json")
        guard case .admin("ready") = rules.decide(request, endpoints: .admin) else { return XCTFail() }
    }

    func testTheAdminPortNeverFetches() {
        guard
            case .respond(let response, nil, "no-route") = rules.decide(
                HTTPRequest(method: "GET", target: "/users/u1"),
                endpoints: .admin)
        else { return XCTFail() }
        XCTAssertEqual(response.status, 404)
    }

    func testARoutesRedactorKnowsTheSecretsOfItsOwnUpstreamsAndHeaders() {
        var route = makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json")
        route.secrets = ["h3ader"]
        let rules = ServingRules(
            RuleSet(
                upstreams: [
                    "api": makeUpstream(secrets: ["s3cret"]),
                    "other": makeUpstream("other", secrets: ["0ther"]),
                ],
                routes: [route], digest: "d1"))
        XCTAssertEqual(
            rules.routeRedactors["user"]?.redact("auth=s3cret h3ader 0ther"),
            "auth=[REDACTED] [REDACTED] 0ther", "what the exchange redacts a route's problems and log lines with")
        XCTAssertEqual(rules.allSecrets.redact("s3cret 0ther"), "[REDACTED] [REDACTED]")
    }
}
