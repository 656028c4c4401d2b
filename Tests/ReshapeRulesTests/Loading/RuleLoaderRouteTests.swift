import ReshapeJSON
import ReshapeRules
import XCTest

final class RuleLoaderRouteTests: XCTestCase {
    func testValidRouteCompilesWithTemplatesAndExamples() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: user
                    request: GET /users/{id}
                    upstream: api
                    path: /users/{id}.json
                    transform:
                      - set: { objectId: "{id}" }
                    examples:
                      - upstream: { name: A }
                        params: { id: u1 }
                        response: { name: A, objectId: u1 }
                """
        let rules = try XCTUnwrap(loaded([("r.yaml", text)]))
        let route = try XCTUnwrap(rules.routes.first)
        XCTAssertEqual(route.method, "GET")
        XCTAssertEqual(route.path.parameterNames, ["id"])
        XCTAssertEqual(route.upstreamPath.parameterNames, ["id"])
        XCTAssertEqual(route.location, SourceLocation(file: "r.yaml", line: 5, column: 5))
        XCTAssertEqual(route.examples.count, 1)
        XCTAssertEqual(route.examples[0].parameters, ["id": "u1"])
        XCTAssertTrue(ExampleRunner.run(rules).allSatisfy { $0.failure == nil })
    }

    func testRequestTemplateMistakes() {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: FETCH
                    upstream: api
                    path: /a.json
                    transform: []
                  - name: b
                    request: GET /b/{id}/{id}
                    upstream: api
                    path: /b.json
                    transform: []
                  - name: c
                    request: GET /c/{x
                    upstream: api
                    path: /c.json
                    transform: []
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:6:14", contains: "`request` must be 'METHOD /path'")
        assertDiagnostic(lines, at: "r.yaml:11:14", contains: "capture '{id}' appears twice")
        assertDiagnostic(lines, at: "r.yaml:16:14", contains: "a capture must be a whole path segment")
    }

    func testPathCaptureUnknownUpstreamUnknownKeyAndSameRequestTwice() {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a
                    upstream: api
                    path: /a/{id}.json
                    transform: []
                  - name: b
                    request: GET /b
                    upstream: nowhere
                    path: /b.json
                    transform: []
                    bogus: 1
                  - name: c
                    request: GET /c/{x}
                    upstream: api
                    path: /c.json
                    transform: []
                  - name: d
                    request: GET /c/{y}
                    upstream: api
                    path: /d.json
                    transform: []
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:8:11", contains: "{id}")
        assertDiagnostic(lines, at: "r.yaml:12:15", contains: "unknown upstream 'nowhere'")
        assertDiagnostic(lines, at: "r.yaml:15:12", contains: "unknown route key 'bogus'")
        XCTAssertEqual(
            lines.filter { $0.contains("answers the same requests as route 'c' (r.yaml:16:5)") }.count, 1,
            lines.joined(separator: "\n"))
    }

    func testEveryFaultyOperationIsLocatedByPointer() {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a
                    upstream: api
                    path: /a.json
                    transform:
                      - frobnicate: {}
                      - wrap: objects
                      - sort: { by: 3 }
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:10:21", contains: "unknown operation 'frobnicate'")
        XCTAssertEqual(lines.filter { $0.hasPrefix("r.yaml:12:") }.count, 1, lines.joined(separator: "\n"))
    }

    func testUnknownTopLevelKeyAndDuplicateNamesAcrossFiles() {
        let first =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    transform: []
                """
        let second =
            plainUpstream + """
                colour: blue
                routes:
                  - name: users
                    request: GET /people
                    upstream: api
                    path: /people.json
                    transform: []
                """
        let lines = diagnostics([("a.yaml", first), ("b.yml", second)])
        assertDiagnostic(lines, at: "b.yml:3:5", contains: "duplicate upstream 'api' (first defined at a.yaml:3:5)")
        assertDiagnostic(lines, at: "b.yml:6:5", contains: "duplicate route 'users' (first defined at a.yaml:5:5)")
        assertDiagnostic(lines, at: "b.yml:4:9", contains: "unknown top-level key 'colour'")
    }
}
