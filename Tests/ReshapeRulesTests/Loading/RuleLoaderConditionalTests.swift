import ReshapeRules
import XCTest

/// A route's `conditional: true` (issue 28's conditional reads and writes): where it may be
/// written, where misuse is reported, and what its tags' fingerprint depends on.
final class RuleLoaderConditionalTests: XCTestCase {
    private let counters = """
        routes:
          - { name: get, request: "GET /counters/{id}", upstream: api, path: "/c/{id}.json", conditional: true, transform: [] }
          - { name: put, request: "PUT /counters/{key}", upstream: api, path: "/c/{key}.json", conditional: true, body: {}, transform: [] }
          - { name: other, request: "GET /others/{id}", upstream: api, path: "/c/{id}.json", conditional: true, transform: [] }
          - { name: plain, request: "GET /plain", upstream: api, path: "/p.json", transform: [] }

        """

    private func fingerprints(_ text: String, extra: String = "") throws -> [String: String] {
        let routes = try XCTUnwrap(loaded([("r.yaml", plainUpstream + text), ("z.yaml", extra)])?.routes)
        return Dictionary(uniqueKeysWithValues: routes.map { ($0.name, $0.conditionalFingerprint) })
    }

    func testRoutesOnOneTemplateShareAFingerprintThatOnlyTheirRulesChange() throws {
        let routes = try XCTUnwrap(loaded([("r.yaml", plainUpstream + counters)])?.routes)
        XCTAssertEqual(routes.map(\.conditional), [true, true, true, false])
        let base = try fingerprints(counters)
        XCTAssertEqual(base["get"], base["put"], "capture names aside, one template: one group")
        XCTAssertNotEqual(base["get"], base["other"], "another template is another group")
        XCTAssertEqual(base["plain"], "")
        XCTAssertFalse(base["get"]?.isEmpty ?? true)

        let unrelated = try fingerprints(
            counters.replacingOccurrences(of: "/p.json", with: "/q.json"),
            extra: "types:\n  T: { type: object }\n")
        XCTAssertEqual(unrelated["get"], base["get"], "other routes, types and files do not matter")

        let changedPut = try fingerprints(counters.replacingOccurrences(of: "body: {}", with: "body: {}, timeout: 2s"))
        XCTAssertNotEqual(changedPut["get"], base["get"], "a change of the write route changes the group's")
        XCTAssertEqual(changedPut["put"], changedPut["get"])
        XCTAssertEqual(changedPut["other"], base["other"])

        let movedUpstream = try XCTUnwrap(
            loaded([("r.yaml", plainUpstream.replacingOccurrences(of: "8081", with: "8082") + counters)])?.routes)
        XCTAssertNotEqual(movedUpstream[0].conditionalFingerprint, base["get"], "the upstream's definition counts")
    }

    func testMisuseIsReportedWhereItIsWritten() {
        let text =
            plainUpstream + """
                routes:
                  - name: create
                    request: POST /users
                    upstream: api
                    path: /users.json
                    conditional: true
                    transform: []
                  - name: fan
                    request: PUT /fan
                    fetch: { a: { upstream: api, path: /a.json } }
                    conditional: true
                    transform: []
                  - name: live
                    request: GET /live
                    upstream: api
                    path: /live.json
                    live: true
                    conditional: true
                    transform: []
                  - name: query
                    request: GET /query
                    upstream: api
                    path: /q.json
                    firebase-query: true
                    conditional: true
                    transform: []
                  - name: word
                    request: GET /word
                    upstream: api
                    path: /w.json
                    conditional: "yes"
                    transform: []
                  - name: follow
                    request: GET /follow
                    upstream: api
                    path: /f.json
                    conditional: true
                    transform:
                      - expand: { key: id, fetch: { upstream: api, path: "/x/{value}.json" }, as: x }
                  - name: forwards
                    request: PATCH /forwards
                    upstream: api
                    path: /f.json
                    forward-headers: [X-Request-Id, If-Match]
                    conditional: true
                    transform: []
                """
        let lines = diagnostics([("r.yaml", text)])
        assertDiagnostic(lines, at: "r.yaml:9:18", contains: "a POST creates a child Firebase names")
        assertDiagnostic(lines, at: "r.yaml:14:18", contains: "not a `fetch:` list")
        assertDiagnostic(lines, at: "r.yaml:21:18", contains: "cannot be used on a live route")
        assertDiagnostic(lines, at: "r.yaml:28:18", contains: "cannot be used with `firebase-query`")
        assertDiagnostic(lines, at: "r.yaml:34:18", contains: "`conditional` must be true or false")
        assertDiagnostic(lines, at: "r.yaml:40:18", contains: "cannot be used with `expand`")
        assertDiagnostic(lines, at: "r.yaml:47:37", contains: "'If-Match' is sent by `conditional: true` itself")
        XCTAssertEqual(lines.count, 7, lines.joined(separator: "\n"))
    }
}
