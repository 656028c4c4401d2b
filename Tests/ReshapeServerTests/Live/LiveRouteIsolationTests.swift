import Foundation
import ReshapeJSON
import ReshapeTestSupport
import XCTest

/// What keeps subscribers' streams apart: requests that would be answered differently never
/// share an upstream stream, nor its answer.
extension LiveRouteTests {
    /// `tenant-users` fetches the same URL for every tenant but sets `tenant` from the path:
    /// a second tenant must get its own stream, and a plain GET its own tenant's answer.
    func testCapturesUsedOnlyByTemplatesKeepStreamsApart() throws {
        let a = try EventStreamClient(port: server.port, "/t/a/users")
        defer { a.close() }
        try a.readHead()
        XCTAssertTrue(try a.expect("snapshot").data.contains(#""tenant":"a""#))
        let b = try EventStreamClient(port: server.port, "/t/b/users")
        defer { b.close() }
        try b.readHead()
        let snapshot = try b.expect("snapshot")
        XCTAssertTrue(snapshot.data.contains(#""tenant":"b""#), snapshot.data)
        XCTAssertEqual(try streamCounts().opened, 2, "one upstream stream per tenant")

        let get = try RawHTTP.get(port: server.port, "/t/c/users")
        XCTAssertNil(get.header("Reshape-Cache"), "no stream of tenant c: fetched")
        XCTAssertTrue(get.text.contains(#""tenant":"c""#), get.text)
        let getB = try RawHTTP.get(port: server.port, "/t/b/users")
        XCTAssertEqual(getB.header("Reshape-Cache"), "live")
        XCTAssertEqual(getB.text, snapshot.data)
    }

    /// Each distinct stream holds an upstream connection: past half of curl's per-host cap a
    /// worker refuses new ones, so plain fetches to the host still find a connection.
    func testStreamsToOneHostAreBoundedAndPlainGetsStillAnswered() throws {
        var clients: [EventStreamClient] = []
        defer { for client in clients { client.close() } }
        for token in 0..<32 {
            let client = try EventStreamClient(
                port: server.port, "/per-token", headers: ["Authorization: Bearer t\(token)"])
            clients.append(client)
            try client.readHead()
            XCTAssertEqual(client.status, 200, "stream \(token)")
        }
        let refused = try RawHTTP.get(
            port: server.port, "/per-token", headers: ["Accept: text/event-stream", "Authorization: Bearer t32"])
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.json["code"] as? String, "too-many-streams")
        XCTAssertEqual(refused.json["upstream"] as? String, "demo")
        let joined = try EventStreamClient(port: server.port, "/per-token", headers: ["Authorization: Bearer t0"])
        clients.append(joined)
        try joined.readHead()
        XCTAssertEqual(joined.status, 200, "an open stream can still be joined")
        let started = Date()
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/users-fetched", timeout: 5).status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "a plain fetch is not queued behind the streams")
    }
}

/// What a subscription's access-log line shows.
extension LiveRouteTests {
    /// A forwarded header value is a secret for this request: its access-log line redacts it,
    /// in the path too (here a capture), as a plain request's line does.
    func testTheLiveAccessLogLineRedactsForwardedValues() throws {
        let client = try EventStreamClient(
            port: server.port, "/t/zzsecret123/users", headers: ["Authorization: zzsecret123"])
        try client.readHead()
        XCTAssertEqual(client.status, 200)
        client.close()
        _ = try RawHTTP.get(port: server.port, "/t/zzsecret123/users", headers: ["Authorization: zzsecret123"])
        var lines: [Substring] = []
        waitUntil(timeout: 3) {
            lines = server.child.stdout.split(separator: "\n").filter { $0.contains("/users\"") }
            return lines.count >= 2
        }
        XCTAssertEqual(lines.count, 2, "the stream's line and the plain GET's: \(lines)")
        for line in lines { XCTAssertFalse(line.contains("zzsecret123"), String(line)) }
    }

    /// A subscription refused (503) logs its line redacted as well.
    func testARefusedSubscriptionsLineRedactsForwardedValues() throws {
        let first = try EventStreamClient(
            port: server.port, "/solo/zzsolo456/users", headers: ["Authorization: zzsolo456"])
        defer { first.close() }
        try first.readHead()
        XCTAssertEqual(first.status, 200)
        let refused = try RawHTTP.get(
            port: server.port, "/solo/zzsolo456/users",
            headers: ["Accept: text/event-stream", "Authorization: zzsolo456"])
        XCTAssertEqual(refused.status, 503)
        var lines: [Substring] = []
        waitUntil(timeout: 3) {
            lines = server.child.stdout.split(separator: "\n").filter { $0.contains("\"status\":503") }
            return !lines.isEmpty
        }
        XCTAssertEqual(lines.count, 1, "the refused request's line")
        for line in lines { XCTAssertFalse(line.contains("zzsolo456"), String(line)) }
    }
}
