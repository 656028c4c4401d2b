import ReshapeRules
import XCTest

/// A route's `firebase-query: true` and `keyed-to-array`'s `order: query` (issue 28's
/// rule-file contract): where they may be written, and where misuse is reported.
final class RuleLoaderFirebaseQueryTests: XCTestCase {
    func testAQueryRouteThatOrdersByTheQuery() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    firebase-query: true
                    transform:
                      - keyed-to-array: { key: objectId, order: query }
                  - { name: plain, request: GET /plain, upstream: api, path: /p.json, firebase-query: true, transform: [] }
                  - { name: off, request: GET /off, upstream: api, path: /o.json, firebase-query: false, transform: [] }
                  - name: nested
                    request: GET /nested
                    upstream: api
                    path: /n.json
                    firebase-query: true
                    transform:
                      - at: { path: /list, do: [ { keyed-to-array: { order: query } } ] }
                """
        let routes = try XCTUnwrap(loaded([("r.yaml", text)])?.routes)
        XCTAssertEqual(routes.map(\.firebaseQuery), [.forwardAndOrder, .forward, .off, .forwardAndOrder])
    }

    func testMisuseIsReportedWhereItIsWritten() {
        let text =
            plainUpstream + """
                routes:
                  - name: write
                    request: POST /users
                    upstream: api
                    path: /users.json
                    firebase-query: true
                    transform: []
                  - name: fan
                    request: GET /fan
                    fetch: { a: { upstream: api, path: /a.json } }
                    firebase-query: true
                    transform: []
                  - name: live
                    request: GET /live
                    upstream: api
                    path: /live.json
                    live: true
                    firebase-query: true
                    transform: []
                  - name: twice
                    request: GET /twice
                    upstream: api
                    path: /twice.json
                    forward-query: [print, orderBy]
                    firebase-query: true
                    transform: []
                  - name: unordered
                    request: GET /unordered
                    upstream: api
                    path: /u.json
                    transform:
                      - keyed-to-array: { order: query }
                  - name: word
                    request: GET /word
                    upstream: api
                    path: /w.json
                    firebase-query: yes
                    transform: []
                  - name: follow
                    request: GET /follow
                    upstream: api
                    path: /f.json
                    firebase-query: true
                    transform:
                      - expand:
                          key: id
                          fetch: { upstream: api, path: "/x/{value}.json" }
                          as: x
                          transform: [ { keyed-to-array: { order: query } } ]
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:9:21", contains: "`firebase-query` is for GET routes")
        assertDiagnostic(lines, at: "r.yaml:14:21", contains: "not a `fetch:` list")
        assertDiagnostic(lines, at: "r.yaml:21:21", contains: "cannot be used on a live route")
        assertDiagnostic(lines, at: "r.yaml:27:28", contains: "'orderBy' is forwarded by `firebase-query: true`")
        assertDiagnostic(lines, at: "r.yaml:35:34", contains: "it needs `firebase-query: true`")
        assertDiagnostic(lines, at: "r.yaml:40:21", contains: "`firebase-query` must be true or false")
        assertDiagnostic(lines, at: "r.yaml:52:51", contains: "it needs `firebase-query: true`")
        XCTAssertEqual(lines.count, 7, lines.joined(separator: "\n"))
    }

    func testAnExampleGivesTheQueryItsRunOrdersBy() throws {
        let text =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    firebase-query: true
                    transform:
                      - keyed-to-array: { key: id, order: query }
                    examples:
                      - query: { orderBy: '"n"', limitToLast: 2 }
                        upstream: { a: { n: 2 }, b: { n: 1 } }
                        response: [ { id: b, n: 1 }, { id: a, n: 2 } ]
                      - upstream: { b: { n: 1 }, a: { n: 2 } }
                        response: [ { id: a, n: 2 }, { id: b, n: 1 } ]
                """
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", text)]))
        XCTAssertEqual(ruleSet.routes[0].examples.map(\.queryOrder), [.child(["n"]), .key])
        let results = ExampleRunner.run(ruleSet)
        XCTAssertEqual(results.map(\.failure), [nil, nil])
    }

    func testAnExamplesQueryIsCheckedAsTheServerChecksIt() {
        let text =
            plainUpstream + """
                routes:
                  - name: users
                    request: GET /users
                    upstream: api
                    path: /users.json
                    firebase-query: true
                    transform:
                      - keyed-to-array: { order: query }
                    examples:
                      - { query: { orderBy: age }, upstream: {}, response: [] }
                      - { query: { orderBy: '"$priority"' }, upstream: {}, response: [] }
                      - { query: { limit: 1 }, upstream: {}, response: [] }
                  - name: plain
                    request: GET /plain
                    upstream: api
                    path: /plain.json
                    transform: []
                    examples:
                      - { query: { orderBy: '"age"' }, upstream: {}, response: {} }
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:13:29", contains: "'orderBy' must be a JSON string")
        assertDiagnostic(lines, at: "r.yaml:14:29", contains: "refuses orderBy \"$priority\"")
        assertDiagnostic(lines, at: "r.yaml:15:27", contains: "'limit' is not a Firebase query parameter")
        assertDiagnostic(lines, at: "r.yaml:22:18", contains: "`query` is for routes with `firebase-query: true`")
        XCTAssertEqual(lines.count, 4, lines.joined(separator: "\n"))
    }
}
