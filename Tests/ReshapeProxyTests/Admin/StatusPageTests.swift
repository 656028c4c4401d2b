import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The status page's HTML: every value escaped, every row shown. A real browser renders it in
/// ReshapeServerTests (StatusPageBrowserTests).
final class StatusPageTests: XCTestCase {
    func testValuesAreEscapedAndEveryRowIsShown() {
        let figures = MetricsWindow.RouteFigures(
            requestsPerSecond: 12.345, errorsPerSecond: 0, p50Seconds: 0.0042, p99Seconds: 1.5, dropped: 2)
        let report = StatusReport(
            generatedAt: "Wed, 25 Nov 2026 19:00:00 GMT", windowSeconds: 60, rulesDigest: "cf65<8e>",
            lastReload: "refused: 1 problem",
            routes: [
                .init(
                    name: "users<script>", request: "GET /users/{id}", figures: figures, cacheHitRatio: 0.5,
                    recentDrops: [DroppedElement(pointer: "/-Nx3", type: "User", reason: "/name: minLength \"&\"")]),
                .init(name: "posts", request: "GET /posts", figures: nil, cacheHitRatio: nil, recentDrops: []),
            ],
            upstreams: [.init(name: "demo", circuit: "open", retries: 4)])
        let html = String(decoding: StatusPage.render(report), as: UTF8.self)
        XCTAssertFalse(html.contains("<script>"))
        XCTAssertTrue(html.contains("users&lt;script&gt;"))
        XCTAssertTrue(html.contains("cf65&lt;8e&gt;"))
        XCTAssertTrue(html.contains("/name: minLength &quot;&amp;&quot;"))
        XCTAssertTrue(html.contains(">12.3<"), html)
        XCTAssertTrue(html.contains("4.2 ms"))
        XCTAssertTrue(html.contains("1.50 s"))
        XCTAssertTrue(html.contains("50.0 %"))
        XCTAssertTrue(html.contains("no cache"))
        XCTAssertTrue(html.contains("<td class=\"open\">open</td>"))
        XCTAssertTrue(html.contains("refused: 1 problem"))
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "no external assets")
    }

    func testALessThanSignWithACombiningMarkIsStillEscaped() {
        XCTAssertEqual(StatusPage.escape("<\u{301}b>"), "&lt;\u{301}b&gt;")
    }

    func testFixedDecimals() {
        XCTAssertEqual(StatusPage.fixed(0.005, digits: 2), "0.01")
        XCTAssertEqual(StatusPage.fixed(12.0, digits: 1), "12.0")
        XCTAssertEqual(StatusPage.fixed(-1.25, digits: 1), "-1.3")
        XCTAssertEqual(StatusPage.fixed(3.0, digits: 0), "3")
    }
}
