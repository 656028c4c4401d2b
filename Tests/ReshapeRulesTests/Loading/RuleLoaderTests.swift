import ReshapeJSON
import XCTest

@testable import ReshapeRules

final class RuleLoaderTests: XCTestCase {
    private let upstream = "upstreams:\n  fb:\n    url: https://example.firebaseio.com/base/\n"

    private func load(_ files: [(String, String)], env: [String: String] = [:]) -> Result<RuleSet, RuleDiagnostics> {
        RuleLoader.load(files: files.map { (name: $0.0, text: $0.1) }, environment: env)
    }

    private func diagnostics(
        _ files: [(String, String)], env: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line
    ) -> [String] {
        switch load(files, env: env) {
        case .success:
            XCTFail("loaded", file: file, line: line)
            return []
        case .failure(let problems): return problems.diagnostics.map(\.description)
        }
    }

    func testGoodRulesCompile() throws {
        let rules =
            upstream + """
                types:
                  User: { type: object, required: [name], properties: { name: { type: string } } }
                routes:
                  - name: user
                    request: GET /users/{id}
                    upstream: fb
                    path: /users/{id}.json
                    forward-query: [print]
                    transform:
                      - set: { objectId: "{id}" }
                      - validate: { type: User }
                """
        let ruleSet = try load([("a.yaml", rules)]).get()
        let route = try XCTUnwrap(ruleSet.routes.first)
        XCTAssertEqual(route.method, "GET")
        XCTAssertEqual(route.path.segments, [.literal("users"), .parameter("id")])
        XCTAssertEqual(route.upstreamPath.segments, [.literal("/users/"), .parameter("id"), .literal(".json")])
        XCTAssertEqual(route.forwardQuery, ["print"])
        XCTAssertEqual(route.location, SourceLocation(file: "a.yaml", line: 7, column: 5))
        let fb = try XCTUnwrap(ruleSet.upstreams["fb"])
        XCTAssertEqual(fb.scheme, "https")
        XCTAssertEqual(fb.host, "example.firebaseio.com")
        XCTAssertEqual(fb.basePath, "/base")
        XCTAssertEqual(fb.timeoutMilliseconds, 10_000)
        XCTAssertEqual(fb.maxBodyBytes, 64 << 20)
        XCTAssertEqual(ruleSet.digest.count, 16)
    }

    func testEnvironmentExpansionKeepsValuesSecret() throws {
        let rules = """
            upstreams:
              fb:
                url: ${FB_URL:-https://fallback.example}
                headers: { Authorization: "Bearer ${TOKEN}" }
                query: { auth: "${TOKEN}" }
            """
        let ruleSet = try load([("a.yaml", rules)], env: ["TOKEN": "hunter2"]).get()
        let fb = try XCTUnwrap(ruleSet.upstreams["fb"])
        XCTAssertEqual(fb.host, "fallback.example")
        XCTAssertEqual(fb.headers, [NameValue(name: "Authorization", value: "Bearer hunter2")])
        XCTAssertEqual(fb.query, [NameValue(name: "auth", value: "hunter2")])
        XCTAssertEqual(Set(fb.secrets), ["hunter2"])

        let problems = diagnostics([("a.yaml", rules)])
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertEqual(
            problems.first, "a.yaml:4:31: environment variable TOKEN is not set (use ${TOKEN:-default} for a default)")
    }

    func testSecretsNeverAppearInDiagnostics() {
        let rules = "upstreams:\n  fb:\n    url: \"ftp://${HOST}\"\n"
        let problems = diagnostics([("a.yaml", rules)], env: ["HOST": "topsecret"])
        XCTAssertEqual(problems, ["a.yaml:3:10: invalid upstream url: the scheme must be http or https"])
    }

    func testEveryMistakeIsLocated() {
        let rules =
            upstream + """
                types:
                  User: { type: object, properties: { name: { type: string, pattern: "([a" } } }
                routes:
                  - name: a
                    request: GET /a/{id}
                    upstream: missing
                    path: /a/{other}.json
                    transform: [ { keyed-to-aray: {} } ]
                  - name: b
                    request: fetch /b
                    upstream: fb
                    path: /b.json
                    colour: blue
                    transform: []
                extra: 1
                """
        let problems = diagnostics([("r.yaml", rules)])
        XCTAssertTrue(
            problems.contains("r.yaml:5:70: type 'User': pattern /([a/ is not a valid regular expression"),
            "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("r.yaml:9:15: unknown upstream 'missing'") }, "\(problems)")
        XCTAssertTrue(
            problems.contains("r.yaml:10:11: '{other}' is not captured by the request template '/a/{id}'"),
            "\(problems)")
        XCTAssertTrue(
            problems.contains {
                $0.hasPrefix("r.yaml:11:35: unknown operation 'keyed-to-aray'; did you mean 'keyed-to-array'?")
            }, "\(problems)")
        XCTAssertTrue(
            problems.contains(
                "r.yaml:13:14: `request` must be 'METHOD /path', like 'GET /users/{id}' (found 'fetch /b')"),
            "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("r.yaml:16:13: unknown route key 'colour'") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("r.yaml:18:8: unknown top-level key 'extra'") }, "\(problems)")
    }

    func testEveryFaultyTypeAndTheRoutesThatUseThemAreReported() {
        // Two bad types (one referenced by the other) and faulty routes that validate against
        // the types: one run reports all of them.
        let rules =
            upstream + """
                types:
                  User: { type: object, properties: { address: { $ref: Address }, age: { minimum: "0" } } }
                  Address: { type: object, properties: { zip: { type: zipcode } } }
                  Good: { type: string }
                routes:
                  - name: a
                    request: GET /a
                    upstream: fb
                    path: /a.json
                    transform: [ { validate: { type: User } }, { wrap: 7 } ]
                  - name: b
                    request: GET /b
                    upstream: fb
                    path: /b.json
                    transform: [ { validate: { type: Nobody } } ]
                """
        let problems = diagnostics([("r.yaml", rules)])
        XCTAssertTrue(problems.contains { $0.hasPrefix("r.yaml:5:") && $0.contains("type 'User'") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("r.yaml:6:") && $0.contains("type 'Address'") }, "\(problems)")
        XCTAssertFalse(problems.contains { $0.contains("type 'Good'") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("r.yaml:13:") && $0.contains("wrap") }, "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("r.yaml:18:") && $0.contains("unknown type 'Nobody'") }, "\(problems)")
    }

    func testYAMLAnchorsAndAliasesAreResolvedAsBefore() throws {
        // Rule files used anchors for shared settings while Yams read them: they keep working.
        let rules = """
            upstreams:
              a: &common { url: "http://127.0.0.1:9", timeout: 2s }
              b: *common
            routes:
              - name: r
                request: GET /r
                upstream: b
                path: /r.json
                transform: &steps [ { wrap: objects } ]
              - name: s
                request: GET /s
                upstream: a
                path: /s.json
                transform: *steps
            """
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", rules)]))
        XCTAssertEqual(ruleSet.upstreams["b"]?.timeoutMilliseconds, 2000)
        XCTAssertEqual(ruleSet.routes.map(\.pipeline.steps.count), [1, 1])
        XCTAssertEqual(
            diagnostics([("u.yaml", "x: *nowhere\n")]),
            ["u.yaml:1:4: YAML syntax error: found undefined alias 'nowhere'"])
    }

    func testDuplicatesAcrossFilesNameBothPlaces() {
        let route = "routes:\n  - { name: r, request: GET /r, upstream: fb, path: /r.json, transform: [] }\n"
        let problems = diagnostics([
            ("a.yaml", upstream + route),
            ("b.yaml", upstream + route.replacingOccurrences(of: "GET /r", with: "GET /s")),
        ])
        XCTAssertTrue(
            problems.contains("b.yaml:3:5: duplicate upstream 'fb' (first defined at a.yaml:3:5)"), "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("b.yaml:5:5: duplicate route 'r' (first defined at a.yaml:5:5)") },
            "\(problems)")
        let overlap = diagnostics([
            (
                "a.yaml",
                upstream + route + "  - { name: r2, request: GET /r, upstream: fb, path: /q.json, transform: [] }\n"
            )
        ])
        XCTAssertTrue(
            overlap.contains { $0.contains("route 'r2' answers the same requests as route 'r'") }, "\(overlap)")
    }

    func testSyntaxErrorsInYAMLAndJSON() {
        XCTAssertEqual(diagnostics([("a.yaml", "routes: [\n")]).first?.hasPrefix("a.yaml:2:1: YAML syntax error"), true)
        XCTAssertEqual(
            diagnostics([("a.json", "{\"routes\": [1,]}")]), ["a.json:1:15: invalid JSON: trailing comma before ']'"])
        XCTAssertEqual(diagnostics([("a.yaml", "a: 1\na: 2\n")]).first?.contains("duplicate key 'a'"), true)
    }

    func testJSONRuleFilesKeepExactNumbersAndPositions() throws {
        let json = """
            {"upstreams": {"fb": {"url": "http://127.0.0.1:9"}},
             "routes": [{"name": "r", "request": "GET /r", "upstream": "fb", "path": "/r.json",
                         "transform": [{"default": {"big": 12345678901234567890}}]}]}
            """
        let ruleSet = try load([("r.json", json)]).get()
        let output = try ruleSet.routes[0].pipeline.run(.object(JSONObject()))
        XCTAssertEqual(output.value.serializedString(), #"{"big":12345678901234567890}"#)
        let problems = diagnostics([("r.json", json.replacingOccurrences(of: "\"default\"", with: "\"defualt\""))])
        XCTAssertEqual(problems.first?.hasPrefix("r.json:3:"), true, "\(problems)")
    }

    func testYAMLScalarsFollowTheCoreSchema() {
        XCTAssertEqual(YAMLScalar.json("yes", plain: true), .string("yes"))
        XCTAssertEqual(YAMLScalar.json("on", plain: true), .string("on"))
        XCTAssertEqual(YAMLScalar.json("true", plain: true), .bool(true))
        XCTAssertEqual(YAMLScalar.json("~", plain: true), .null)
        XCTAssertEqual(YAMLScalar.json("42", plain: false), .string("42"))
        XCTAssertEqual(YAMLScalar.json("+1", plain: true).serializedString(), "1")
        XCTAssertEqual(YAMLScalar.json(".5", plain: true).serializedString(), "0.5")
        XCTAssertEqual(YAMLScalar.json("1.50", plain: true).serializedString(), "1.50")
        XCTAssertEqual(YAMLScalar.json("0x10", plain: true), .string("0x10"))
    }

    func testUpstreamURLs() {
        XCTAssertEqual(
            try UpstreamURL.parse("http://[::1]:8080/x/").get(),
            UpstreamURL(scheme: "http", host: "::1", port: 8080, basePath: "/x"))
        for bad in [
            "https://user:pw@host", "http://host/?q=1", "http://host:0", "http://host:99999", "file:///etc",
            "http:///x", "http://host/../x",
        ] {
            XCTAssertThrowsError(try UpstreamURL.parse(bad).get(), bad)
        }
    }

    func testExamplesReportTheFirstDifference() throws {
        let rules =
            upstream + """
                routes:
                  - name: r
                    request: GET /r
                    upstream: fb
                    path: /r.json
                    transform: [ { keyed-to-array: { key: id } } ]
                    examples:
                      - upstream: { a: { n: 1 } }
                        response: [ { id: a, n: 2 } ]
                      - upstream: { a: { n: 1 } }
                        response: [ { n: 1, id: a } ]
                      - upstream: { a: { n: 1 } }
                        response: [ { id: a, n: 1 } ]
                """
        let outcomes = ExampleRunner.run(try load([("r.yaml", rules)]).get())
        XCTAssertEqual(
            outcomes.map(\.failure),
            [
                "response differs at /0/n: expected 2, got 1",
                "response has its members in another order at /0: expected [n, id], got [id, n]", nil,
            ])
    }
}
