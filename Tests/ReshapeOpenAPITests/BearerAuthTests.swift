import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import XCTest

/// A route with `auth` is documented with the `bearerAuth` scheme and its 401, 403 and 503.
final class BearerAuthTests: XCTestCase {
    func testAnAuthRouteNamesTheSchemeAndItsErrors() throws {
        let rules = try Fixture.rules(
            """
            auth:
              users: { jwks: "http://127.0.0.1:1/keys", issuer: me, audience: app }
            routes:
              - { name: me, request: GET /me, auth: users, upstream: up, path: "/u/{auth.sub}.json", transform: [] }
              - { name: open, request: GET /open, upstream: up, path: /p.json, transform: [] }
            """)
        let document = OpenAPIDocument.build(rules)
        func at(_ pointer: String) -> JSON? { document[JSONPointer(pointer)!] }
        XCTAssertEqual(at("/components/securitySchemes/bearerAuth/scheme"), .string("bearer"))
        XCTAssertEqual(at("/components/securitySchemes/bearerAuth/bearerFormat"), .string("JWT"))
        XCTAssertEqual(at("/paths/~1me/get/security/0/bearerAuth"), .array([]))
        XCTAssertNil(at("/paths/~1open/get/security"))
        XCTAssertNil(at("/paths/~1me/get/parameters"), "claims are not client parameters")
        let statuses = Dictionary(
            uniqueKeysWithValues: OpenAPIDocument.errorStatuses(of: rules.routes[0]).map { ($0.status, $0.codes) })
        XCTAssertEqual(statuses[401], ["unauthenticated"])
        XCTAssertEqual(statuses[403], ["forbidden"])
        XCTAssertEqual(statuses[503], ["overloaded", "shutting-down", "load-shed", "auth-unavailable"])
        XCTAssertNil(OpenAPIDocument.errorStatuses(of: rules.routes[1]).first { $0.status == 401 })
    }

    func testRulesWithoutAuthHaveNoSecuritySchemes() throws {
        let rules = try Fixture.rules(
            "routes: [ { name: open, request: GET /open, upstream: up, path: /p.json, transform: [] } ]")
        XCTAssertNil(OpenAPIDocument.build(rules)[JSONPointer("/components/securitySchemes")!])
    }
}
