import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import XCTest

/// A `conditional: true` route documents its tag, and a conditional write its `If-Match` and
/// `Prefer` headers, its 412 with the current tag and its minimal 204.
final class ConditionalOperationTests: XCTestCase {
    func testConditionalRoutesDocumentTheirHeadersAndAnswers() throws {
        let rules = try Fixture.rules(
            """
            routes:
              - { name: get, request: "GET /c/{id}", upstream: up, path: "/c/{id}.json", conditional: true, transform: [] }
              - { name: put, request: "PUT /c/{id}", upstream: up, path: "/c/{id}.json", conditional: true, body: {}, transform: [] }
              - { name: plain, request: "PATCH /c/{id}", upstream: up, path: "/c/{id}.json", body: {}, transform: [] }
            """)
        let document = OpenAPIDocument.build(rules)
        func at(_ pointer: String) -> JSON? { document[JSONPointer(pointer)!] }
        XCTAssertNotNil(at("/paths/~1c~1{id}/get/responses/200/headers/ETag"))
        XCTAssertNil(at("/paths/~1c~1{id}/get/responses/412"))
        XCTAssertEqual(at("/paths/~1c~1{id}/put/parameters/1/name"), .string("If-Match"))
        XCTAssertEqual(at("/paths/~1c~1{id}/put/parameters/2/name"), .string("Prefer"))
        XCTAssertNotNil(at("/paths/~1c~1{id}/put/responses/412/headers/ETag"))
        XCTAssertNotNil(at("/paths/~1c~1{id}/put/responses/204/headers/Preference-Applied"))
        XCTAssertEqual(OpenAPIDocument.errorStatuses(of: rules.routes[1]).map(\.status).filter { $0 == 412 }, [412])
        XCTAssertNil(at("/paths/~1c~1{id}/patch/responses/412"))
        XCTAssertNil(at("/paths/~1c~1{id}/patch/responses/204"))
    }
}
