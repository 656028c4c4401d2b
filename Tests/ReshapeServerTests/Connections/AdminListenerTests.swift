import Foundation
import ReshapeTestSupport
import XCTest

/// `--admin-listen`: the admin endpoints on a port of their own, served by the main thread's
/// loop, and only the rule routes on the public port.
final class AdminListenerTests: XCTestCase {
    func testEachPortAnswersOnlyItsOwnEndpoints() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port),
            arguments: ["--admin-listen", "127.0.0.1:0"], environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        XCTAssertNotEqual(server.adminPort, server.port, "port 0 picked a port of its own, logged as admin_address")

        XCTAssertEqual(try RawHTTP.get(port: server.port, "/users").status, 200)
        XCTAssertEqual(try RawHTTP.get(port: server.adminPort, "/_reshape/live").json["status"] as? String, "live")
        XCTAssertEqual(try RawHTTP.get(port: server.adminPort, "/_reshape/ready").json["status"] as? String, "ready")
        let metrics = try RawHTTP.get(port: server.adminPort, "/_reshape/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(
            metrics.text.contains("reshape_requests_total{route=\"users\",status=\"200\"} 1"),
            "the workers' counts: \(metrics.text)")

        for path in ["/_reshape/live", "/_reshape/ready", "/_reshape/metrics"] {
            let response = try RawHTTP.get(port: server.port, path)
            XCTAssertEqual(response.status, 404, "\(path) on the public port")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
            XCTAssertEqual(response.json["code"] as? String, "no-route")
        }
        _ = try RawHTTP.get(port: upstream.port, "/_log?clear=1")
        for path in ["/users", "/echo/x", "/"] {
            let response = try RawHTTP.get(port: server.adminPort, path)
            XCTAssertEqual(response.status, 404, "\(path) on the admin port")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
            XCTAssertEqual(response.json["code"] as? String, "no-route")
        }
        XCTAssertEqual(try upstream.log().count, 0, "the admin port never fetches")

        // The same HTTP rules hold on the admin port.
        var client = try RawHTTP(port: server.adminPort, timeout: 3)
        defer { client.close() }
        client.send("GET /_reshape/live HTTP/2.0\r\nHost: x\r\n\r\n")
        XCTAssertEqual(client.readResponse()?.status, 505)
    }

    func testTheAdminPortKeepsAnsweringWhileTheWorkersDrain() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port),
            environment: ["TEST_SECRET_TOKEN": "x", "RESHAPE_ADMIN_LISTEN": "127.0.0.1:0"])
        defer { server.stop() }
        XCTAssertNotEqual(server.adminPort, server.port, "RESHAPE_ADMIN_LISTEN works like the flag")
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send("GET /slow?ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n")
        try upstream.waitForRequest("/fault/slow")
        server.child.signal(SIGTERM)
        try server.child.waitFor(5, "the drain") { $0.stderr.contains("\"draining\"") }

        let ready = try RawHTTP.get(port: server.adminPort, "/_reshape/ready")
        XCTAssertEqual(ready.status, 503)
        XCTAssertEqual(ready.json["code"] as? String, "shutting-down")
        XCTAssertEqual(try RawHTTP.get(port: server.adminPort, "/_reshape/live").status, 200)
        XCTAssertTrue(server.child.process.isRunning, "still draining")

        XCTAssertEqual(client.readResponse()?.status, 200, "the request in flight finishes")
        XCTAssertEqual(server.child.waitForExit(10), 0, server.child.stderr)
    }

    func testTheAdminAddressIsCheckedBeforeStarting() throws {
        for (address, message) in [("127.0.0.1:18080", "needs a port of its own"), ("nowhere", "takes HOST:PORT")] {
            let child = try ChildProcess(
                "reshape",
                [
                    "serve", "--rules", "/nonexistent", "--listen", "127.0.0.1:18080",
                    "--admin-listen", address,
                ])
            XCTAssertEqual(child.waitForExit(10), 2, address)
            XCTAssertTrue(child.stderr.contains(message), child.stderr)
        }
    }
}
