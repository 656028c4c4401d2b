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
}

/// A value shared by the test's threads.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ new: Value) { lock.withLock { value = new } }
}
