import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import XCTest

/// A `limit:` route is documented with its 429 `rate-limited`, `Retry-After`, and the
/// `RateLimit-Policy` and `RateLimit` headers on every answer.
final class RateLimitOperationTests: XCTestCase {
    func testALimitedRouteNamesItsRefusalAndHeaders() throws {
        let rules = try Fixture.rules(
            """
            limits:
              per-address: { rate: 10/s, key: client-address }
            routes:
              - { name: limited, request: GET /limited, upstream: up, path: /p.json, limit: [per-address], transform: [] }
              - { name: open, request: GET /open, upstream: up, path: /p.json, transform: [] }
            """)
        let document = OpenAPIDocument.build(rules)
        func at(_ pointer: String) -> JSON? { document[JSONPointer(pointer)!] }
        let limited = Dictionary(
            uniqueKeysWithValues: OpenAPIDocument.errorStatuses(of: rules.routes[0]).map { ($0.status, $0.codes) })
        XCTAssertEqual(limited[429], ["rate-limited"])
        XCTAssertNil(OpenAPIDocument.errorStatuses(of: rules.routes[1]).first { $0.status == 429 })
        XCTAssertNotNil(at("/paths/~1limited/get/responses/429/headers/Retry-After"))
        for status in ["200", "304", "400", "429", "502"] {
            XCTAssertNotNil(at("/paths/~1limited/get/responses/\(status)/headers/RateLimit-Policy"), status)
            XCTAssertNotNil(at("/paths/~1limited/get/responses/\(status)/headers/RateLimit"), status)
        }
        XCTAssertNotNil(at("/paths/~1limited/get/responses/200/headers/Reshape-Dropped"), "kept beside them")
        XCTAssertNil(at("/paths/~1open/get/responses/200/headers/RateLimit"))
    }
}
