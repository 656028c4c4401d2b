import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import XCTest

/// A route with `firebase-query: true` lists Firebase's query parameters, and its 400 names
/// `bad-parameter`.
final class FirebaseQueryParameterTests: XCTestCase {
    func testAQueryRouteListsFirebasesParameters() throws {
        let rules = try Fixture.rules(
            """
            routes:
              - name: users
                request: GET /users
                upstream: up
                path: /users.json
                firebase-query: true
                forward-query: [print]
                cache: { ttl: 1s, vary-query: [orderBy] }
                transform: [ { keyed-to-array: { order: query } } ]
              - { name: plain, request: GET /plain, upstream: up, path: /p.json, transform: [] }
            """)
        let document = OpenAPIDocument.build(rules)
        func at(_ pointer: String) -> JSON? { document[JSONPointer(pointer)!] }
        let names = (0..<10).compactMap { at("/paths/~1users/get/parameters/\($0)/name") }
        XCTAssertEqual(
            names, (["print"] + FirebaseQuery.names).map(JSON.string), "orderBy is listed once, with the Firebase ones")
        XCTAssertEqual(at("/paths/~1users/get/parameters/5/schema/pattern"), .string("^[1-9][0-9]*$"), "limitToFirst")
        XCTAssertEqual(
            OpenAPIDocument.errorStatuses(of: rules.routes[0]).first?.codes, ["bad-request", "bad-parameter"])
        XCTAssertNil(at("/paths/~1plain/get/parameters"))
        XCTAssertEqual(OpenAPIDocument.errorStatuses(of: rules.routes[1]).first?.codes, ["bad-request"])
    }
}
