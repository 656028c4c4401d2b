import ReshapeJSON
import ReshapeRules
import XCTest

final class RuleLoaderDocumentTests: XCTestCase {
    /// YAML 1.2 core schema: quoted scalars stay strings, `on`/`yes` are strings, numbers keep their text.
    func testYAMLScalarsConvertByCoreSchema() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: a
                    request: GET /a
                    upstream: api
                    path: /a.json
                    transform:
                      - set: { q: "42", n: 42, f: 1.50, b: true, y: yes, o: on, z: ~ }
                    examples:
                      - upstream: {}
                        response: { q: "42", n: 42, f: 1.50, b: true, y: "yes", o: "on", z: null }
                """
        let rules = try XCTUnwrap(loaded([("r.yaml", text)]))
        let outcomes = ExampleRunner.run(rules)
        XCTAssertEqual(outcomes.count, 1)
        XCTAssertNil(outcomes.first?.failure)
        let output = try rules.routes[0].pipeline.run(.object(JSONObject()), parameters: [:]).value
        XCTAssertEqual(output.serializedString(), #"{"q":"42","n":42,"f":1.50,"b":true,"y":"yes","o":"on","z":null}"#)
    }

    func testYAMLSyntaxErrorHasLineAndColumn() {
        let lines = diagnostics([("bad.yaml", "routes:\n  - name: [unclosed\n")])
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines[0].hasPrefix("bad.yaml:3:1: YAML syntax error"), lines[0])
    }

    func testJSONRuleFileIsParsedStrictlyWithPositions() {
        let lines = diagnostics([("r.json", #"{"routes": [ {"name": "x",} ]}"#)])
        assertDiagnostic(lines, at: "r.json:1:27", contains: "invalid JSON")

        let valid = """
            {"upstreams": {"api": {"url": "http://127.0.0.1:1"}},
             "routes": [{"name": "a", "request": "GET /a", "upstream": "api",
                         "path": "/a.json", "transform": [{"nope": 1}]}]}
            """
        let validLines = diagnostics([("r.json", valid)])
        XCTAssertEqual(
            validLines.filter { $0.hasPrefix("r.json:3:") && $0.contains("unknown operation 'nope'") }.count, 1,
            validLines.joined(separator: "\n"))
    }

    func testUnknownTypeAndBadPatternComeFromTheSchemaCompiler() {
        let bad =
            plainUpstream + """
                types:
                  User:
                    type: object
                    properties:
                      name: { type: string, pattern: "(" }
                """
        assertDiagnostic(diagnostics([("t.yaml", bad)]), at: "t.yaml:8:38", contains: "type 'User': pattern /(/")

        let unknown =
            plainUpstream + """
                types:
                  User: { type: object }
                routes:
                  - name: a
                    request: GET /a
                    upstream: api
                    path: /a.json
                    transform:
                      - validate: { type: Usr, invalid: drop }
                """
        let lines = diagnostics([("t.yaml", unknown)])
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("t.yaml:12:") && $0.contains("Usr") }.count, 1, lines.joined(separator: "\n"))
    }

    func testDiagnosticsAreSortedByFileThenLine() {
        let later = plainUpstream + "colour: blue\nshape: round\n"
        let lines = diagnostics([("b.yaml", later), ("a.yaml", "size: 3\n")])
        XCTAssertEqual(lines.map { String($0.prefix(10)) }, ["a.yaml:1:7", "b.yaml:4:9", "b.yaml:5:8"])
    }

    func testDigestIsStableAndChangesWithTheRules() throws {
        let one = try XCTUnwrap(loaded([("u.yaml", plainUpstream)]))
        let again = try XCTUnwrap(loaded([("u.yaml", plainUpstream)]))
        let other = try XCTUnwrap(loaded([("u.yaml", "upstreams:\n  api:\n    url: http://127.0.0.1:8082\n")]))
        XCTAssertEqual(one.digest, again.digest)
        XCTAssertNotEqual(one.digest, other.digest)
    }
}
