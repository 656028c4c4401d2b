import ReshapeRules
import XCTest

/// Found by the `rules` fuzz target (docs/hardening.md): an upstream path was checked for
/// '?' and '#' only after its last capture, so `/search?q={id}` loaded (the capture landed in
/// the query, before the upstream's own `?auth=…`) and `/x#{id}` loaded (the capture landed
/// in the fragment, which is never sent: every id fetched the same URL).
final class UpstreamPathFuzzRegressionTests: XCTestCase {
    private func route(_ path: String) -> String {
        plainUpstream + """
            routes:
              - name: r
                request: GET /r/{id}
                upstream: api
                path: "\(path)"
                transform: []
            """
    }

    func testQueryOrFragmentBeforeACaptureIsRefused() {
        for path in ["/search?q={id}", "/x#{id}", "/a?{id}/b", "/a#b/{id}.json"] {
            let lines = diagnostics([("r.yaml", route(path))])
            assertDiagnostic(lines, at: "r.yaml:8:11", contains: "the upstream path must not contain '?' or '#'")
        }
    }

    func testQueryOrFragmentAfterTheLastCaptureIsStillRefused() {
        for path in ["/x/{id}?a=1", "/x/{id}#top", "/x?a"] {
            let lines = diagnostics([("r.yaml", route(path))])
            assertDiagnostic(lines, at: "r.yaml:8:11", contains: "the upstream path must not contain '?' or '#'")
        }
    }

    func testPlainUpstreamPathsStillLoad() throws {
        let ruleSet = try XCTUnwrap(loaded([("r.yaml", route("/users/{id}.json"))]))
        XCTAssertEqual(
            ruleSet.routes.first?.upstreamPath.segments, [.literal("/users/"), .parameter("id"), .literal(".json")])
    }
}
