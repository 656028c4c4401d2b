import Foundation
import ReshapeTestSupport
import XCTest

/// Reload and shutdown, each on a server of its own.
final class LifecycleTests: XCTestCase {
    func testSighupSwapsInGoodRulesAndRefusesBadOnes() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        // Without the rules watch, which would reload (and count a refusal) on its own.
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port, version: "v1"),
            arguments: ["--no-watch-rules"], environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v1"])

        try server.replaceRules(TestRules.rules(upstreamPort: upstream.port, version: "v2"))
        server.child.signal(SIGHUP)
        try server.child.waitFor(5, "the reload") { $0.stderr.contains("rules reloaded") }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v2"])

        try server.replaceRules("routes:\n  - name: broken\n    request: GET /x\n    upstream: none\n")
        server.child.signal(SIGHUP)
        try server.child.waitFor(5, "the refusal") { $0.stderr.contains("reload refused") }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v2"], "the old rules stay in service")
        XCTAssertTrue(server.child.process.isRunning)
        XCTAssertTrue(
            try RawHTTP.get(port: server.port, "/_reshape/metrics").text.contains(
                "reshape_rule_reloads_total{result=\"refused\"} 1"))
    }

    func testSigtermFinishesTheRequestInFlightAndExitsZero() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port), environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send("GET /slow?ms=600 HTTP/1.1\r\nHost: x\r\n\r\n")
        try upstream.waitForRequest("/fault/slow")
        server.child.signal(SIGTERM)
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(server.child.waitForExit(10), 0, server.child.stderr)
    }

    func testADrainTimeoutThatCutsRequestsOffExitsThreeAndSaysHowMany() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port), arguments: ["--drain-timeout", "300"],
            environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send("GET /slow?ms=1200 HTTP/1.1\r\nHost: x\r\n\r\n")  // within the upstream's 1.5 s timeout
        try upstream.waitForRequest("/fault/slow")
        server.child.signal(SIGTERM)
        XCTAssertEqual(server.child.waitForExit(10), 3, server.child.stderr)
        XCTAssertTrue(server.child.stderr.contains("\"requests_cut\":1"), server.child.stderr)
        XCTAssertNil(client.readResponse(), "the request that was cut is never answered")
    }

    func testConnectionsPastTheCapGet503() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port),
            arguments: ["--workers", "1", "--max-connections", "2"],
            environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        let first = try RawHTTP(port: server.port)
        let second = try RawHTTP(port: server.port)
        defer {
            first.close()
            second.close()
        }
        // One worker accepts in the order the connections were made: the first two are counted
        // before the third.
        var third = try RawHTTP(port: server.port, timeout: 3)
        defer { third.close() }
        let refused = try XCTUnwrap(third.readResponse())
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.json["code"] as? String, "overloaded")
        first.close()
        // Until the worker has seen the close; before that a new connection is still one too many.
        waitUntil { (try? RawHTTP.get(port: server.port, "/_reshape/live").status) == 200 }
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/_reshape/live").status, 200, "a freed slot is usable again")
    }

    func testBadRulesRefuseToStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reshape-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "routes: [".write(to: directory.appendingPathComponent("r.yaml"), atomically: true, encoding: .utf8)
        let child = try ChildProcess("reshape", ["serve", "--rules", directory.path, "--listen", "127.0.0.1:0"])
        XCTAssertEqual(child.waitForExit(10), 1)
        XCTAssertTrue(child.stderr.contains("r.yaml:"), child.stderr)
    }
}
