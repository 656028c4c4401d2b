import Foundation
import ReshapeJSON
import ReshapeLive
import ReshapeTestSupport
import XCTest

/// `reshape serve` streaming live routes from the demo upstream's Firebase-style streams:
/// real processes, real sockets.
final class LiveRouteTests: XCTestCase {
    var upstream: DemoUpstream!
    var server: ReshapeServer!

    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", timeout: 3s }
        types:
        \(UsersRules.userType())
        routes:
        \(UsersRules.route(upstream: "demo", options: ["live: { keep-alive: 300ms }"]))
          # The same answer fetched every time: what the streams are compared with, since a
          # plain GET of a live route with a stream open comes from that stream.
        \(UsersRules.route(name: "users-fetched", request: "GET /users-fetched", upstream: "demo"))
          - name: one-subscriber
            request: GET /one-subscriber
            upstream: demo
            path: /scores.json
            live: { max-subscribers: 1 }
            transform: []
          - name: refused
            request: GET /refused
            upstream: demo
            path: /fault/status/500
            live: true
            transform: []
          - name: not-a-stream
            request: GET /not-a-stream
            upstream: demo
            path: /echo/x
            live: true
            transform: []
          - name: scores
            request: GET /scores
            upstream: demo
            path: /scores.json
            live: { keep-alive: 10s, buffer: 4KiB }
            transform: []
          # A capture only a template uses: the upstream request is the same for every tenant.
          - name: tenant-users
            request: GET /t/{tenant}/users
            upstream: demo
            path: /users.json
            forward-headers: [Authorization]
            live: true
            transform:
              - keyed-to-array: { key: objectId, order: key }
              - set: { tenant: "{tenant}" }
          - name: solo-users
            request: GET /solo/{token}/users
            upstream: demo
            path: /users.json
            forward-headers: [Authorization]
            live: { max-subscribers: 1 }
            transform: []
          # A plain answer that comes late: a stream pipelined after it waits for its head.
          - name: blob-late
            request: GET /blob-late
            upstream: demo
            path: /delay/1000/blob.json
            transform: []
          # One upstream stream per client credential.
          - name: per-token
            request: GET /per-token
            upstream: demo
            path: /scores.json
            forward-headers: [Authorization]
            live: true
            transform: []
        """
    }

    override func setUpWithError() throws {
        upstream = try DemoUpstream(arguments: ["--keep-alive", "0.5"])
        // One worker, so every subscriber of a test shares one hub.
        server = try ReshapeServer(rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    func testTheSnapshotAndEachPatchMatchAPlainGet() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        XCTAssertEqual(client.status, 200)
        XCTAssertEqual(client.header("Content-Type"), "text/event-stream")
        XCTAssertEqual(client.header("Cache-Control"), "no-store")
        XCTAssertEqual(client.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(client.header("Content-Length"))
        let snapshot = try client.expect("snapshot")
        XCTAssertEqual(snapshot.id, "1")
        XCTAssertEqual(snapshot.data, try plainGet("/users-fetched"))
        var document = try JSON.parse(Array(snapshot.data.utf8))

        let created = try write("POST", "/users.json", #"{"name":"Zed","age":30}"#)
        guard case .object(let answer) = try JSON.parse(Array(created.utf8)), case .string(let id)? = answer["name"]
        else {
            return XCTFail("no push id in \(created)")
        }
        let steps: [(String, String, String?)] = [
            ("PATCH", "/users/\(id).json", #"{"age":31}"#),
            ("PATCH", "/users/\(id).json", #"{"name":""}"#),  // invalid: dropped from the answer
            ("PATCH", "/users/\(id).json", #"{"name":"Zoe"}"#),
            ("DELETE", "/users/\(id).json", nil),
        ]
        var expectedID = 2
        try applyNextPatch(client, to: &document, id: expectedID)
        for (method, path, body) in steps {
            _ = try write(method, path, body)
            expectedID += 1
            try applyNextPatch(client, to: &document, id: expectedID)
        }
    }

    func testPlainGetAndHeadOfALiveRouteAreUnchanged() throws {
        let get = try RawHTTP.get(port: server.port, "/users")
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(get.header("Content-Type"), "application/json")
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send("HEAD /users HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n")
        let head = try XCTUnwrap(client.readResponse(headOnly: true))
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Type"), "application/json")
        XCTAssertEqual(try streamCounts().opened, 0, "neither opened an upstream stream")
    }

    func testSubscribersShareOneUpstreamStreamClosedOnceTheyLeave() throws {
        let first = try EventStreamClient(port: server.port, "/users")
        try first.readHead()
        _ = try first.expect("snapshot")
        let second = try EventStreamClient(port: server.port, "/users")
        try second.readHead()
        let late = try second.expect("snapshot")
        XCTAssertEqual(late.id, "1", "each subscriber numbers its own events")
        XCTAssertEqual(late.data, try plainGet("/users-fetched"))
        XCTAssertEqual(try streamCounts().opened, 1)
        XCTAssertEqual(try metric("reshape_live_subscribers"), 2)
        XCTAssertEqual(try metric("reshape_live_upstream_streams"), 1)
        first.close()
        second.close()
        try waitUntil(timeout: 2) { try streamCounts().open == 0 }
        XCTAssertEqual(try streamCounts().open, 0, "the upstream stream closes within 2 s of the last subscriber")
        XCTAssertEqual(try metric("reshape_live_subscribers"), 0)
        XCTAssertEqual(try metric("reshape_live_upstream_streams"), 0)
        let lines = server.child.stdout.split(separator: "\n").filter { $0.contains(#""live_events""#) }
        XCTAssertEqual(lines.count, 2, "one access-log line per subscription: \(lines)")
    }

    func testADroppedUpstreamStreamReconnectsWithANewSnapshot() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        _ = try write("POST", "/_demo/streams/drop", nil)
        let again = try client.expect("snapshot")
        XCTAssertEqual(again.id, "2")
        XCTAssertEqual(again.data, try plainGet("/users-fetched"))
        XCTAssertEqual(try streamCounts().opened, 2)
    }

    func testAnUpstreamOutageAfterASnapshotIsWaitedOut() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        // Firebase overloaded: the next two stream requests are answered 503, then it is back.
        _ = try write("POST", "/_demo/streams/refuse?count=2&status=503", nil)
        _ = try write("POST", "/_demo/streams/drop", nil)
        let again = try client.expect("snapshot", timeout: 10)
        XCTAssertEqual(again.id, "2", "no error event came before it")
        XCTAssertEqual(again.data, try plainGet("/users-fetched"))
        XCTAssertEqual(try streamCounts().opened, 2, "two refused requests, then the second stream")
    }

    func testASilentUpstreamStreamIsReconnected() throws {
        // An upstream whose keep-alives come less often than the stall bound.
        server.stop()
        upstream.child.stop()
        upstream = try DemoUpstream(arguments: ["--keep-alive", "30"])
        server = try ReshapeServer(
            rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1", "--live-stall-timeout", "1"])
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        // curl averages the speed over its last seconds: the stall shows a few seconds late.
        let again = try client.expect("snapshot", timeout: 15)
        XCTAssertEqual(again.id, "2", "a new snapshot after the stalled stream was replaced")
        XCTAssertEqual(try streamCounts().opened, 2)
    }

    func testACancelledUpstreamStreamEndsWithAnError() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        _ = try write("POST", "/_demo/streams/cancel", nil)
        let error = try client.expect("error")
        XCTAssertTrue(error.data.contains(#""code":"upstream-stream-cancelled""#), error.data)
        XCTAssertTrue(try client.waitForEnd(), "the stream ends after its error")
    }

    func testARevokedCredentialEndsTheStreamWithAnError() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        _ = try write("POST", "/_demo/streams/revoke", nil)
        let error = try client.expect("error")
        XCTAssertTrue(error.data.contains(#""code":"upstream-auth-revoked""#), error.data)
        XCTAssertTrue(try client.waitForEnd())
    }

    func testKeepAliveCommentsArrive() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        XCTAssertTrue(try client.waitForComments(2, timeout: 3), "a `: keep-alive` every 300 ms")
    }

    func testASlowConsumerIsCutOffWhileAFastOneKeepsReceiving() throws {
        let slow = try EventStreamClient(port: server.port, "/scores")
        defer { slow.close() }
        let fast = try EventStreamClient(port: server.port, "/scores")
        defer { fast.close() }
        try fast.readHead()
        _ = try fast.expect("snapshot")
        // Big patches, so the kernel's socket buffers fill and the rest queues in the server.
        let big = String(repeating: "x", count: 64_000)
        var cutOff = false
        for round in 0..<300 where !cutOff {
            _ = try write("PUT", "/scores/big.json", "\"\(big)\(round)\"")
            _ = try fast.expect("patch")
            if round % 8 == 7 { cutOff = try metric("reshape_live_slow_consumers_total") == 1 }
        }
        XCTAssertTrue(cutOff, "the slow consumer was cut off")
        _ = try write("PUT", "/scores/after.json", "1")
        _ = try fast.expect("patch")
        try slow.readHead()
        var last: ServerSentEvent?
        while let event = try slow.next(timeout: 2) { last = event }
        XCTAssertEqual(last?.name, "error")
        XCTAssertTrue(last?.data.contains(#""code":"slow-consumer""#) ?? false, String((last?.data ?? "").prefix(200)))
    }

    func testAPlainGetIsAnsweredFromAnOpenStream() throws {
        XCTAssertNil(try RawHTTP.get(port: server.port, "/users").header("Reshape-Cache"), "no stream yet: fetched")
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        let snapshot = try client.expect("snapshot")
        let fetchesBefore = try upstream.log().filter { ($0["target"] as? String) == "/users.json" }.count
        let get = try RawHTTP.get(port: server.port, "/users")
        XCTAssertEqual(get.header("Reshape-Cache"), "live")
        XCTAssertEqual(get.text, snapshot.data)
        XCTAssertEqual(get.header("Content-Type"), "application/json")
        let fetchesAfter = try upstream.log().filter { ($0["target"] as? String) == "/users.json" }.count
        XCTAssertEqual(fetchesAfter, fetchesBefore, "answered without a fetch")
    }

    func testOneSubscriberTooManyIsAnswered503() throws {
        let first = try EventStreamClient(port: server.port, "/one-subscriber")
        defer { first.close() }
        try first.readHead()
        _ = try first.expect("snapshot")
        let second = try RawHTTP.get(port: server.port, "/one-subscriber", headers: ["Accept: text/event-stream"])
        XCTAssertEqual(second.status, 503)
        XCTAssertEqual(second.json["code"] as? String, "too-many-subscribers")
    }

    func testAnUpstreamRefusingTheStreamEndsItWithAnError() throws {
        let client = try EventStreamClient(port: server.port, "/refused")
        defer { client.close() }
        try client.readHead()
        let error = try client.expect("error")
        XCTAssertTrue(error.data.contains(#""code":"upstream-stream-refused""#), error.data)
        XCTAssertTrue(try client.waitForEnd())
    }

    func testAnUpstreamAnsweringJSONInsteadOfAStreamEndsItWithAnError() throws {
        let client = try EventStreamClient(port: server.port, "/not-a-stream")
        defer { client.close() }
        try client.readHead()
        let error = try client.expect("error")
        XCTAssertTrue(error.data.contains(#""code":"upstream-stream-refused""#), error.data)
        XCTAssertTrue(error.data.contains("200 with Content-Type application/json"), error.data)
        XCTAssertTrue(try client.waitForEnd())
    }

    func testDrainingEndsEveryStreamWithShuttingDown() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        server.child.signal(SIGTERM)
        let error = try client.expect("error")
        XCTAssertTrue(error.data.contains(#""code":"shutting-down""#), error.data)
        XCTAssertTrue(try client.waitForEnd())
        XCTAssertEqual(server.child.waitForExit(5), 0, "the stream does not hold up the drain")
    }

    // MARK: - Helpers

    private func applyNextPatch(_ client: EventStreamClient, to document: inout JSON, id: Int) throws {
        let event = try client.expect("patch")
        XCTAssertEqual(event.id, String(id))
        document = try patch(from: event.data).applied(to: document)
        XCTAssertEqual(String(decoding: document.serialized(), as: UTF8.self), try plainGet("/users-fetched"))
    }

    func plainGet(_ path: String) throws -> String {
        let response = try RawHTTP.get(port: server.port, path)
        guard response.status == 200 else { throw HarnessError("GET \(path): \(response.status) \(response.text)") }
        return response.text
    }

    /// A write to the demo upstream; its answer's body.
    @discardableResult
    func write(_ method: String, _ target: String, _ body: String?) throws -> String {
        var client = try RawHTTP(port: upstream.port)
        defer { client.close() }
        let bytes = Array((body ?? "").utf8)
        client.send(
            "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
        client.send(bytes)
        guard let response = client.readResponse() else { throw HarnessError("no answer to \(method) \(target)") }
        guard response.status < 300 else { throw HarnessError("\(method) \(target): \(response.status)") }
        return response.text
    }

    func streamCounts() throws -> (open: Int, opened: Int) {
        let json = try RawHTTP.get(port: upstream.port, "/_demo/streams").json
        return (json["open"] as? Int ?? -1, json["opened"] as? Int ?? -1)
    }

    func metric(_ name: String) throws -> Int? {
        let text = try RawHTTP.get(port: server.adminPort, "/_reshape/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
        return Int(line.split(separator: " ").last ?? "")
    }
}
