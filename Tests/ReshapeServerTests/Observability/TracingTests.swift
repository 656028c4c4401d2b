import Foundation
import ReshapeTestSupport
import XCTest

/// Issue 19 item 4 end to end: `reshape serve` in front of the demo upstream, whose log shows
/// the trace headers each fetch carried, and a real OTLP receiver (`otlp_receiver.py`, which
/// decodes every export with opentelemetry-proto) that shows the spans.
final class TracingTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var receiver: OTLPReceiver!
    nonisolated(unsafe) static var server: ReshapeServer!
    static let adaId = "-NqK3a9Xb2mLp0Rt7Yv1"

    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)" }
          retrying: { url: "http://127.0.0.1:\(upstreamPort)", retry: { attempts: 1, on: [503] } }
        routes:
          - name: user
            request: GET /users/{id}
            upstream: demo
            transform: []
            path: "/users/{id}.json"
          - name: echo
            request: GET /echo/{tag}
            upstream: demo
            transform: []
            path: "/echo/{tag}"
            forward-headers: [traceparent, tracestate, X-Request-Id]
          - name: retried
            request: GET /retried/{tag}
            upstream: retrying
            transform: []
            path: "/fault/status-once/503/{tag}"
          - name: failing
            request: GET /failing/{tag}
            upstream: demo
            transform: []
            path: /fault/status/503
        """
    }

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            receiver = try OTLPReceiver()
            server = try ReshapeServer(
                rules: rules(upstreamPort: upstream.port),
                arguments: ["--otlp-endpoint", "http://127.0.0.1:\(receiver.port)"],
                environment: ["OTEL_SERVICE_NAME": "reshape-tests"])
        } catch {
            // A missing venv fails every test, naming the script that installs it.
            setUpError = error
        }
    }

    nonisolated(unsafe) static var setUpError: Error?

    override class func tearDown() {
        server?.stop()
        receiver?.stop()
        upstream?.child.stop()
        super.tearDown()
    }

    override func setUpWithError() throws {
        if let error = Self.setUpError { throw error }
    }

    private var port: Int { Self.server.port }
    private func tag() -> String { "t" + UUID().uuidString.prefix(8).lowercased() }
    private func randomHex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    func testAFetchContinuesTheClientsTraceAndItsSpansAreExported() throws {
        let traceID = randomHex(16)
        let clientSpan = randomHex(8)
        let tag = tag()
        let response = try RawHTTP.get(
            port: port, "/echo/\(tag)?token=secret-in-query",
            headers: ["traceparent: 00-\(traceID)-\(clientSpan)-01", "tracestate: vendor=opaque"])
        XCTAssertEqual(response.status, 200, response.text)
        let entry = try XCTUnwrap(Self.upstream.waitForEntries("/echo/\(tag)", count: 1).first)
        // Listed in forward-headers, yet sent once: ours, with a span id of its own.
        XCTAssertEqual(entry.headers.filter { $0.0.lowercased() == "traceparent" }.count, 1, "\(entry.headers)")
        let sent = try XCTUnwrap(entry.header("traceparent")).split(separator: "-").map(String.init)
        XCTAssertEqual(sent.count, 4)
        XCTAssertEqual(sent[0], "00")
        XCTAssertEqual(sent[1], traceID)
        XCTAssertNotEqual(sent[2], clientSpan)
        XCTAssertEqual(sent[3], "01")
        XCTAssertEqual(entry.header("tracestate"), "vendor=opaque")

        let spans = try Self.receiver.waitForSpans(traceID: traceID, count: 2)
        let server = try XCTUnwrap(spans.first { $0["kind"] as? Int == 2 }, "\(spans)")
        let client = try XCTUnwrap(spans.first { $0["kind"] as? Int == 3 }, "\(spans)")
        XCTAssertEqual(server["service"] as? String, "reshape-tests")
        XCTAssertEqual(server["name"] as? String, "GET /echo/{tag}")
        XCTAssertEqual(server["parentSpanId"] as? String, clientSpan)
        XCTAssertEqual(client["parentSpanId"] as? String, server["spanId"] as? String)
        XCTAssertEqual(client["spanId"] as? String, sent[2])
        let serverAttributes = try XCTUnwrap(server["attributes"] as? [String: Any])
        XCTAssertEqual(serverAttributes["http.request.method"] as? String, "GET")
        XCTAssertEqual(serverAttributes["http.route"] as? String, "/echo/{tag}")
        XCTAssertEqual(serverAttributes["http.response.status_code"] as? Int, 200)
        XCTAssertEqual(serverAttributes["url.path"] as? String, "/echo/\(tag)")
        XCTAssertEqual(serverAttributes["reshape.route"] as? String, "echo")
        XCTAssertEqual(serverAttributes["reshape.dropped"] as? Int, 0)
        XCTAssertEqual(serverAttributes["reshape.cache"] as? String, "none")
        let clientAttributes = try XCTUnwrap(client["attributes"] as? [String: Any])
        XCTAssertEqual(clientAttributes["server.address"] as? String, "127.0.0.1")
        XCTAssertEqual(clientAttributes["server.port"] as? Int, Self.upstream.port)
        XCTAssertEqual(clientAttributes["url.full"] as? String, "http://127.0.0.1:\(Self.upstream.port)/echo/\(tag)")
        XCTAssertEqual(clientAttributes["http.response.status_code"] as? Int, 200)
        XCTAssertEqual(clientAttributes["reshape.retry_count"] as? Int, 0)
        XCTAssertFalse("\(spans)".contains("secret-in-query"))
        let logged = Self.server.child.stdout.split(separator: "\n").first { $0.contains("/echo/\(tag)") }
        XCTAssertTrue(logged?.contains("\"trace_id\":\"\(traceID)\"") ?? false, "\(logged ?? "no access-log line")")
    }

    /// Health probes and metric scrapes carry no spans: they would drown the client traces.
    func testAdminEndpointsAreNotExported() throws {
        let probeTrace = randomHex(16)
        let probe = try RawHTTP.get(
            port: port, "/_reshape/live", headers: ["traceparent: 00-\(probeTrace)-\(randomHex(8))-01"])
        XCTAssertEqual(probe.status, 200)
        let traceID = randomHex(16)
        let tag = tag()
        _ = try RawHTTP.get(port: port, "/echo/\(tag)", headers: ["traceparent: 00-\(traceID)-\(randomHex(8))-01"])
        // Spans leave in order: once the later request's are in, the probe's would be too.
        _ = try Self.receiver.waitForSpans(traceID: traceID, count: 2)
        XCTAssertTrue(try Self.receiver.lines().filter { $0["traceId"] as? String == probeTrace }.isEmpty)
    }

    /// A fetch the upstream client retried once (a 503, then an answer) says so on its span.
    func testARetriedFetchCountsItsRetries() throws {
        let traceID = randomHex(16)
        let response = try RawHTTP.get(
            port: port, "/retried/\(tag())", headers: ["traceparent: 00-\(traceID)-\(randomHex(8))-01"])
        XCTAssertEqual(response.status, 200, response.text)
        let spans = try Self.receiver.waitForSpans(traceID: traceID, count: 2)
        let client = try XCTUnwrap(spans.first { $0["kind"] as? Int == 3 }, "\(spans)")
        let attributes = try XCTUnwrap(client["attributes"] as? [String: Any])
        XCTAssertEqual(attributes["reshape.retry_count"] as? Int, 1, "\(client)")
    }

    func testAFailedFetchIsAnErrorSpan() throws {
        let traceID = randomHex(16)
        let response = try RawHTTP.get(
            port: port, "/failing/\(tag())", headers: ["traceparent: 00-\(traceID)-\(randomHex(8))-01"])
        XCTAssertEqual(response.status, 502, response.text)
        let spans = try Self.receiver.waitForSpans(traceID: traceID, count: 2)
        let client = try XCTUnwrap(spans.first { $0["kind"] as? Int == 3 })
        XCTAssertEqual((client["attributes"] as? [String: Any])?["error.type"] as? String, "503")
        XCTAssertEqual(client["status"] as? Int, 2)
        let server = try XCTUnwrap(spans.first { $0["kind"] as? Int == 2 })
        XCTAssertEqual((server["attributes"] as? [String: Any])?["http.response.status_code"] as? Int, 502)
    }

    func testAnInvalidTraceparentIsNotForwardedAndANewTraceStarts() throws {
        let tag = tag()
        let invalid = "00-\(String(repeating: "0", count: 32))-\(randomHex(8))-01"
        let response = try RawHTTP.get(port: port, "/echo/\(tag)", headers: ["traceparent: \(invalid)"])
        XCTAssertEqual(response.status, 200, response.text)
        let entry = try XCTUnwrap(Self.upstream.waitForEntries("/echo/\(tag)", count: 1).first)
        let sent = try XCTUnwrap(entry.header("traceparent"))
        XCTAssertNotEqual(sent, invalid)
        let parts = sent.split(separator: "-")
        XCTAssertEqual(parts.count, 4)
        XCTAssertEqual(parts[1].count, 32)
        XCTAssertNotEqual(String(parts[1]), String(repeating: "0", count: 32))
        // Started here, so sampled by the default ratio (1), and exported with no parent.
        let spans = try Self.receiver.waitForSpans(traceID: String(parts[1]), count: 2)
        let server = try XCTUnwrap(spans.first { $0["kind"] as? Int == 2 })
        XCTAssertEqual(server["parentSpanId"] as? String, "")
    }

    func testANotSampledTraceIsPassedOnButNotExported() throws {
        let unsampled = randomHex(16)
        let tag = tag()
        let response = try RawHTTP.get(
            port: port, "/users/\(Self.adaId)", headers: ["traceparent: 00-\(unsampled)-\(randomHex(8))-00"])
        XCTAssertEqual(response.status, 200, response.text)
        let echo = try RawHTTP.get(
            port: port, "/echo/\(tag)", headers: ["traceparent: 00-\(unsampled)-\(randomHex(8))-00"])
        XCTAssertEqual(echo.status, 200)
        let entry = try XCTUnwrap(Self.upstream.waitForEntries("/echo/\(tag)", count: 1).first)
        XCTAssertTrue(entry.header("traceparent")?.hasSuffix("-00") ?? false)
        // Sampled requests sent after, on fresh connections (so on either worker), arrive; the
        // unsampled ones never do.
        for _ in 0..<4 {
            let sampled = randomHex(16)
            _ = try RawHTTP.get(
                port: port, "/users/\(Self.adaId)", headers: ["traceparent: 00-\(sampled)-\(randomHex(8))-01"])
            _ = try Self.receiver.waitForSpans(traceID: sampled, count: 2)
        }
        let lines = try Self.receiver.lines()
        XCTAssertTrue(lines.allSatisfy { $0["traceId"] as? String != unsampled })
        XCTAssertTrue(lines.allSatisfy { $0["error"] == nil }, "\(lines)")
    }

    func testAReceiverThatIsDownFailsExportsLoggedOnceAndCountedWithAnswersUnaffected() throws {
        // A port that was free a moment ago: connections to it are refused.
        let closed = try OTLPReceiver()
        let deadPort = closed.port
        closed.stop()
        let server = try ReshapeServer(
            rules: Self.rules(upstreamPort: Self.upstream.port),
            arguments: ["--otlp-endpoint", "http://127.0.0.1:\(deadPort)/v1/traces"])
        defer { server.stop() }
        func exportFailedDrops() throws -> Int {
            let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
            let line = metrics.split(separator: "\n").first {
                $0.hasPrefix("reshape_spans_dropped_total{reason=\"export-failed\"}")
            }
            return Int(line?.split(separator: " ").last ?? "") ?? 0
        }
        // Two failed exports, one after the other: the second request's spans are queued after
        // the first export failed, so they leave in an export of their own.
        var drops = 0
        for _ in 0..<2 {
            let response = try RawHTTP.get(port: server.port, "/users/\(Self.adaId)")
            XCTAssertEqual(response.status, 200, response.text)
            let before = drops
            try waitUntil(timeout: 5) {
                drops = try exportFailedDrops()
                return drops > before
            }
        }
        try server.child.waitFor(5, "a failed export to be logged") { $0.stderr.contains("span export failed") }
        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        let dropped = metrics.split(separator: "\n").first {
            $0.hasPrefix("reshape_spans_dropped_total{reason=\"export-failed\"}")
        }
        XCTAssertGreaterThan(Int(dropped?.split(separator: " ").last ?? "") ?? 0, 0, metrics)
        XCTAssertTrue(metrics.contains("reshape_spans_exported_total 0"), metrics)
        XCTAssertEqual(
            server.child.stderr.components(separatedBy: "span export failed").count - 1, 1, server.child.stderr)
    }

    func testBadTracingSettingsAreRefusedAtStart() throws {
        let cases: [([String], [String: String], String)] = [
            (["--trace-sample-ratio", "1.5"], [:], "--trace-sample-ratio takes a number from 0 to 1"),
            ([], ["RESHAPE_TRACE_SAMPLE_RATIO": "half"], "--trace-sample-ratio takes a number from 0 to 1"),
            (["--otlp-endpoint", "collector:4318"], [:], "must be an http:// or https:// URL"),
            ([], ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://"], "must be an http:// or https:// URL"),
        ]
        for (arguments, environment, message) in cases {
            let child = try ChildProcess(
                "reshape", ["serve", "--rules", "/nonexistent", "--listen", "127.0.0.1:0"] + arguments,
                environment: environment)
            XCTAssertEqual(child.waitForExit(), 2, "\(arguments) \(environment): \(child.stderr)")
            try child.waitFor(2, "the reason") { $0.stderr.contains(message) }
        }
    }

    func testBadSizeAndStallSettingsAreRefusedAtStart() throws {
        let cases: [([String], [String: String], String)] = [
            (
                ["--compress-min-bytes=-1"], [:],
                "--compress-min-bytes takes a whole number of bytes, 0 or more (got '-1')"
            ),
            ([], ["RESHAPE_COMPRESS_MIN_BYTES": "1k"], "--compress-min-bytes takes a whole number of bytes, 0 or more"),
            (
                ["--live-stall-timeout", "0"], [:],
                "--live-stall-timeout takes a whole number of seconds, 1 or more (got '0')"
            ),
            (
                [], ["RESHAPE_LIVE_STALL_TIMEOUT": "soon"],
                "--live-stall-timeout takes a whole number of seconds, 1 or more"
            ),
        ]
        for (arguments, environment, message) in cases {
            let child = try ChildProcess(
                "reshape", ["serve", "--rules", "/nonexistent", "--listen", "127.0.0.1:0"] + arguments,
                environment: environment)
            XCTAssertEqual(child.waitForExit(), 2, "\(arguments) \(environment): \(child.stderr)")
            try child.waitFor(2, "the reason") { $0.stderr.contains(message) }
        }
    }
}
