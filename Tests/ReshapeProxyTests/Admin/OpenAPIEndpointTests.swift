import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// `GET /_reshape/openapi.json`: the rule set's OpenAPI document, built once with the rules.
final class OpenAPIEndpointTests: XCTestCase {
    func testTheDocumentIsBuiltWithTheRulesAndServedAsJSON() throws {
        let rules = ServingRules(
            RuleSet(
                upstreams: ["api": makeUpstream()],
                routes: [makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json")],
                digest: "d1"))
        guard case .admin(let name) = rules.decide(HTTPRequest(method: "GET", target: "/_reshape/openapi.json")) else {
            return XCTFail()
        }
        let response = AdminEndpoints.response(
            name, draining: false, rulesDigest: "d1", metricsText: { "" },
            openAPIDocument: { rules.openAPIDocument })
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers.first { $0.name == "Content-Type" }?.value, "application/json")
        let document = try XCTUnwrap(parseJSON(response.body))
        XCTAssertEqual(document[JSONPointer(tokens: ["openapi"])], .string("3.1.0"))
        XCTAssertNotNil(document[JSONPointer(tokens: ["paths", "/users/{id}", "get", "responses", "200"])])
        XCTAssertNil(
            document[JSONPointer(tokens: ["servers"])], "clients use the origin they fetched the document from")
    }
}
