import Foundation
import ReshapeTestSupport
import XCTest

/// `--max-loop-lag` end to end: while large pipelines keep a worker's loop busy, the requests
/// that waited behind them are answered 503 `load-shed`, and health always answers.
final class LoopLagSheddingTests: XCTestCase {
    func testABlockedLoopShedsRoutesAndHealthStillAnswers() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  demo: { url: "http://127.0.0.1:\(upstream.port)", timeout: 10s, max-body: 64MiB }
                routes:
                  - { name: big, request: GET /big, upstream: demo, path: /fault/big, forward-query: [bytes], transform: [] }
                  - { name: users, request: GET /users, upstream: demo, path: /users.json, transform: [] }
                """, arguments: ["--workers", "1", "--max-loop-lag", "50ms"])
        defer { server.stop() }

        // Large documents, one after another, each a pipeline that holds the loop well past 50 ms.
        let done = Locked(false)
        let port = server.port
        let big = Thread {
            for _ in 0..<6 { _ = try? RawHTTP.get(port: port, "/big?bytes=8000000", timeout: 30) }
            done.set(true)
        }
        big.start()
        var statuses: [Int: Int] = [:]
        var healthStatuses: Set<Int> = []
        while !done.get() {
            let response = try RawHTTP.get(port: server.port, "/users")
            statuses[response.status, default: 0] += 1
            if response.status == 503 {
                XCTAssertEqual(response.json["code"] as? String, "load-shed", response.text)
                XCTAssertEqual(response.header("Retry-After"), "1")
            }
            healthStatuses.insert(try RawHTTP.get(port: server.port, "/_reshape/live").status)
        }
        XCTAssertEqual(Set(statuses.keys).subtracting([200, 503]), [], "only answers or clean sheds: \(statuses)")
        XCTAssertGreaterThan(statuses[503] ?? 0, 0, "a request that waited behind a pipeline was shed: \(statuses)")
        XCTAssertGreaterThan(statuses[200] ?? 0, 0, "and the loop caught up between them: \(statuses)")
        XCTAssertEqual(healthStatuses, [200], "health is never shed")
        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains("reshape_shed_total{reason=\"loop-lag\"} \(statuses[503] ?? 0)"), metrics)
        XCTAssertTrue(server.child.stderr.contains("shedding new requests"), server.child.stderr)
    }

    func testABodyIsNotReadWhileTheLoopRunsLate() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  demo: { url: "http://127.0.0.1:\(upstream.port)", timeout: 10s, max-body: 64MiB }
                routes:
                  - { name: big, request: GET /big, upstream: demo, path: /fault/big, forward-query: [bytes], transform: [] }
                  - { name: echo, request: POST /echo, upstream: demo, path: /echo, body: {}, transform: [ { keep: [method] } ] }
                """, arguments: ["--workers", "1", "--max-loop-lag", "50ms"])
        defer { server.stop() }

        let done = Locked(false)
        let port = server.port
        let big = Thread {
            for _ in 0..<6 { _ = try? RawHTTP.get(port: port, "/big?bytes=8000000", timeout: 30) }
            done.set(true)
        }
        big.start()
        var statuses: [Int: Int] = [:]
        var shedAtHead = 0
        while !done.get() {
            // The head alone: a worker that reads it while running late answers at once; one
            // on time waits for the body, which is sent once no answer came.
            var client = try RawHTTP(port: server.port, timeout: 0.3)
            defer { client.close() }
            client.send(
                "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n")
            var response = client.readResponse()
            if response == nil {
                client.send("{}")
                var wait = timeval(tv_sec: 30, tv_usec: 0)
                setsockopt(client.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                response = client.readResponse()
            }
            let answer = try XCTUnwrap(response, "no answer")
            statuses[answer.status, default: 0] += 1
            if answer.status == 503 {
                XCTAssertEqual(answer.json["code"] as? String, "load-shed", answer.text)
                XCTAssertEqual(answer.header("Retry-After"), "1")
                // Shed at its head, the body unread: the connection cannot be read on.
                if answer.header("Connection") == "close" {
                    shedAtHead += 1
                    XCTAssertTrue(client.readAll().isEmpty, "closed after the refusal")
                }
            } else {
                XCTAssertEqual(answer.status, 200, answer.text)
            }
            XCTAssertEqual(try RawHTTP.get(port: server.port, "/_reshape/live").status, 200, "health is never shed")
        }
        XCTAssertGreaterThan(shedAtHead, 0, "a body arriving while the loop ran late was never read: \(statuses)")
        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains("reshape_shed_total{reason=\"loop-lag\"} \(statuses[503] ?? 0)"), metrics)
    }
}

/// A value shared by the test's threads.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ new: Value) { lock.withLock { value = new } }
}
