import ReshapeRules
import XCTest

/// An upstream's `max-in-flight` and `queue` (issue 29).
final class RuleLoaderUpstreamQueueTests: XCTestCase {
    func testTheIssueExampleLoads() throws {
        let text = """
            upstreams:
              firebase:
                url: https://my-app.firebaseio.com
                max-in-flight: 256
                queue: { size: 1024, timeout: 1s }
            """
        let firebase = try XCTUnwrap(loaded([("u.yaml", text)])?.upstreams["firebase"])
        XCTAssertEqual(firebase.maxInFlight, 256)
        XCTAssertEqual(firebase.queue, UpstreamQueueRule(size: 1024, timeoutMilliseconds: 1000))
    }

    func testUnboundedWithoutTheKeysAndNoQueueWithoutQueue() throws {
        let api = try XCTUnwrap(loaded([("u.yaml", plainUpstream)])?.upstreams["api"])
        XCTAssertNil(api.maxInFlight, "unbounded unless asked for")
        XCTAssertNil(api.queue)
        let text = "upstreams:\n  api: { url: \"http://127.0.0.1:8081\", max-in-flight: 8 }\n"
        let limited = try XCTUnwrap(loaded([("u.yaml", text)])?.upstreams["api"])
        XCTAssertEqual(limited.maxInFlight, 8)
        XCTAssertNil(limited.queue, "beyond 8, refused at once")
    }

    func testEveryBadValueAndUnknownKeyIsLocated() {
        let text = """
            upstreams:
              bad:
                url: http://127.0.0.1:9
                max-in-flight: 0
                queue: { size: -1, timeout: soon, depth: 3 }
              worse:
                url: http://127.0.0.1:9
                max-in-flight: many
                queue: 10
              unlimited:
                url: http://127.0.0.1:9
                queue: { size: 10, timeout: 1s }
              half:
                url: http://127.0.0.1:9
                max-in-flight: 2.5
                queue: {}
            """
        let lines = diagnostics([("u.yaml", text)])
        assertDiagnostic(lines, at: "u.yaml:4:20", contains: "`max-in-flight` must be a whole number from 1 to 100000")
        assertDiagnostic(lines, at: "u.yaml:5:20", contains: "`size` must be a whole number from 1 to 1000000")
        assertDiagnostic(lines, at: "u.yaml:5:33", contains: "`timeout` must be a duration from 1ms to 10m")
        assertDiagnostic(lines, at: "u.yaml:5:46", contains: "unknown queue key 'depth'")
        assertDiagnostic(lines, at: "u.yaml:8:20", contains: "`max-in-flight` must be a whole number")
        assertDiagnostic(
            lines, at: "u.yaml:9:12", contains: "`queue` must be a mapping like { size: 1024, timeout: 1s }")
        assertDiagnostic(lines, at: "u.yaml:12:12", contains: "`queue` needs `max-in-flight`")
        assertDiagnostic(lines, at: "u.yaml:15:20", contains: "`max-in-flight` must be a whole number")
        assertDiagnostic(lines, at: "u.yaml:16:12", contains: "`queue` needs `size`")
        assertDiagnostic(lines, at: "u.yaml:16:12", contains: "`queue` needs `timeout`")
        XCTAssertEqual(lines.count, 10, lines.joined(separator: "\n"))
    }
}
