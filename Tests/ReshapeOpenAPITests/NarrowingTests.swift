import ReshapeJSON
import ReshapeOpenAPI
import XCTest

/// A `validate` step whose type already implies what earlier steps derived: its `$ref` alone,
/// which generated clients can use (an `allOf` of a derived fragment and the type made
/// openapi-python-client drop the response: "float can't be merged with float | None").
final class NarrowingTests: XCTestCase {
    func testTheExampleWidgetsAreTheTypeAlone() throws {
        let rules = try Fixture.exampleRules()
        let catalog = TypeCatalog(types: rules.types, reserved: [OpenAPIDocument.problemComponent])
        let route = try XCTUnwrap(rules.routes.first { $0.name == "widgets" })
        let schema = OpenAPIDocument.responseSchema(of: route, types: catalog)
        let items = schema[JSONPointer("/properties/objects/items")!]
        XCTAssertEqual(items, .object(JSONObject(["$ref": .string("#/components/schemas/Widget")])), "\(schema)")
    }

    func testAFragmentTheTypeDoesNotImplyIsKept() throws {
        let rules = try Fixture.rules(
            """
            types:
              Loose: { type: object, properties: { n: { type: number } } }
            routes:
              - name: r
                request: GET /r
                upstream: up
                path: /r.json
                transform:
                  - set: { tag: "x" }
                  - validate: { type: Loose, invalid: drop }
            """)
        let catalog = TypeCatalog(types: rules.types, reserved: [OpenAPIDocument.problemComponent])
        let schema = OpenAPIDocument.responseSchema(of: rules.routes[0], types: catalog)
        // `Loose` allows objects without `tag`; the `set` step guarantees it, so both stay.
        XCTAssertTrue(schema.serializedString().contains("allOf"), schema.serializedString())
        XCTAssertTrue(schema.serializedString().contains("\"tag\""), schema.serializedString())
    }
}
