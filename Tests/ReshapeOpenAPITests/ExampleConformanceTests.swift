import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import XCTest

/// Done-when of issue 12: every example route's derived response schema accepts the route's
/// actual output for each of its examples.
final class ExampleConformanceTests: XCTestCase {
    func testEveryExampleOutputMatchesItsDerivedSchema() throws {
        let ruleSet = try Fixture.exampleRules()
        let schemas = try DerivedSchemas(ruleSet)
        var checked = 0
        for route in ruleSet.routes {
            for example in route.examples where example.error == nil {
                var output: JSON
                do {
                    output = try runRoute(
                        route, input: example.upstream, parameters: example.parameters,
                        queryOrder: example.queryOrder
                    ) { value in
                        var captures = example.parameters
                        captures["value"] = value
                        guard let path = try? route.stages.first?.expand.fetch.renderedPath(captures),
                            let body = example.followUps[path]
                        else { return .notFound }
                        return .body(OfflineRun.tape(body))
                    }
                } catch {
                    XCTFail("route \(route.name) example at \(example.location): \(error)")
                    continue
                }
                // The example's client query (issue 26): its response is the view.
                if let query = example.clientQuery {
                    output = try ClientView.view(of: output, rawQuery: query, route: route) ?? output
                }
                if let expected = example.response { XCTAssertEqual(output, expected, "route \(route.name)") }
                if let problem = schemas.violations(of: output, route: route.name) { XCTFail(problem) }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 10)
        XCTAssertEqual(Set(ruleSet.routes.map(\.name)).count, ruleSet.routes.count)
    }

    /// The example routes' schemas say something: not `{}` where the transform knows better.
    func testExampleSchemasAreSpecific() throws {
        let schemas = try DerivedSchemas(try Fixture.exampleRules()).schemas
        XCTAssertEqual(
            schemas["users"]?.serializedString(),
            // `client-query: { fields: true }`: a view's records may leave any member out, so none is
            // required; each keeps its schema.
            ##"{"type":"object","properties":{"objects":{"type":"array","items":{"type":"object","properties":{"objectId":{"type":"string","minLength":1},"name":{"type":"string","minLength":1},"age":{"type":"integer","minimum":0},"email":{"type":"string","pattern":"^[^@ ]+@[^@ ]+$"},"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}}}}}}},"required":["objects"],"additionalProperties":false}"##
        )
        XCTAssertEqual(
            schemas["profile"]?.serializedString(),
            ##"{"type":"object","properties":{"devices":{"type":"array","items":{"type":"object","properties":{"deviceId":{"type":"string"}},"required":["deviceId"]}}},"required":["devices"]}"##
        )
        XCTAssertEqual(
            schemas["devices"]?.serializedString(),
            ##"{"type":"object","properties":{"objects":{"type":"array","items":{"allOf":[{"type":"object","properties":{"userId":{"type":"string"},"devices":{"type":"array","items":{"type":"object","properties":{"deviceId":{"type":"string"}},"required":["deviceId"]}}},"required":["userId","devices"],"additionalProperties":false},{"$ref":"#/components/schemas/UserDevices"}]}}},"required":["objects"],"additionalProperties":false}"##
        )
    }
}
