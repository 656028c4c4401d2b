import Foundation
import ReshapeTestSupport
import XCTest

/// An upstream's `max-in-flight` and `queue` end to end (issue 29), on two workers in front of
/// the demo upstream's slow answers: two fetches at once over the process, the queued ones
/// served in their order, the queue's overflow and timeouts answered 503, and a client that
/// leaves the queue freeing its place.
final class UpstreamQueueTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: ReshapeServer!

    static func rules(upstreamPort: Int) -> String {
        let url = "http://127.0.0.1:\(upstreamPort)"
        return """
            upstreams:
              paced: { url: "\(url)", max-in-flight: 2, queue: { size: 2, timeout: 3s } }
              brief: { url: "\(url)", max-in-flight: 1, queue: { size: 1, timeout: 300ms } }
              held: { url: "\(url)", max-in-flight: 2, queue: { size: 2, timeout: 5s } }
              retried: { url: "\(url)", max-in-flight: 1, queue: { size: 1, timeout: 5s }, retry: { attempts: 1, on: [503] } }
            routes:
              - { name: paced, request: "GET /paced/{ms}/{tag}", upstream: paced, path: "/delay/{ms}/echo/paced-{tag}", transform: [] }
              - { name: brief, request: "GET /brief/{ms}/{tag}", upstream: brief, path: "/delay/{ms}/echo/brief-{tag}", transform: [] }
              - { name: retried, request: "GET /retried/{tag}", upstream: retried, path: "/delay/300/fault/status-once/503/retried-{tag}", transform: [] }
              - { name: held, request: "GET /held/{ms}/{tag}", upstream: held, path: "/delay/{ms}/echo/held-{tag}", transform: [] }
            """
    }

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            server = try ReshapeServer(rules: rules(upstreamPort: upstream.port), arguments: ["--workers", "2"])
        } catch {
            XCTFail("could not start the servers: \(error)")
        }
    }

    override class func tearDown() {
        server?.stop()
        upstream?.child.stop()
        super.tearDown()
    }

    private var port: Int { Self.server.port }

    /// A GET sent on its own kept-alive connection (the server watches it for the client
    /// leaving), answered later by `answer`.
    private func send(_ target: String) throws -> RawHTTP {
        let client = try RawHTTP(port: port)
        client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return client
    }

    private func answer(_ client: RawHTTP) throws -> RawHTTP.Response {
        var client = client
        defer { client.close() }
        return try XCTUnwrap(client.readResponse(), "no answer")
    }

    private func gauge(_ name: String, _ upstream: String) throws -> Int? {
        let text = try RawHTTP.get(port: port, "/_reshape/metrics").text
        let prefix = "\(name){upstream=\"\(upstream)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return Int(line.dropFirst(prefix.count))
    }

    private func waitForQueue(_ upstream: String, _ length: Int) throws {
        let reached = try waitUntil(timeout: 5) { try gauge("reshape_upstream_queue_length", upstream) == length }
        XCTAssertTrue(reached, "the queue of \(upstream) never held \(length)")
    }

    func testTwoFetchesAtOnceTheQueuedServedInOrderAndTheOverflowRefused() throws {
        // b ends after a, so each queued one starts at its own freed place: c at a's end, d at b's.
        let first = try send("/paced/600/a")
        try Self.upstream.waitForEntries("/delay/600/echo/paced-a", count: 1)
        let second = try send("/paced/900/b")
        try Self.upstream.waitForEntries("/delay/900/echo/paced-b", count: 1)
        let third = try send("/paced/600/c")
        try waitForQueue("paced", 1)
        let fourth = try send("/paced/600/d")
        try waitForQueue("paced", 2)
        XCTAssertEqual(try gauge("reshape_upstream_in_flight", "paced"), 2)

        let started = Date()
        let overflow = try RawHTTP.get(port: port, "/paced/600/e")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.3, "refused at once")
        XCTAssertEqual(overflow.status, 503, overflow.text)
        XCTAssertEqual(overflow.json["code"] as? String, "upstream-saturated")
        XCTAssertEqual(overflow.header("Retry-After"), "3", "the queue's timeout")
        XCTAssertEqual(overflow.header("Content-Type"), "application/problem+json")

        for client in [first, second, third, fourth] {
            let response = try answer(client)
            XCTAssertEqual(response.status, 200, response.text)
        }
        let entries = try Self.upstream.log().map(UpstreamLogEntry.init).filter { $0.target.contains("/echo/paced-") }
        XCTAssertEqual(entries.map { $0.target.suffix(1) }, ["a", "b", "c", "d"].map { Substring($0) })
        XCTAssertFalse(entries.contains { $0.target.hasSuffix("e") }, "the refused fetch never reached the upstream")
        // Never more than two at the upstream: each queued one started after one of the first ended.
        let firstEnds = entries.prefix(2).compactMap(\.answeredMs).sorted()
        XCTAssertEqual(firstEnds.count, 2)
        XCTAssertGreaterThanOrEqual(entries[2].startedMs, firstEnds[0])
        XCTAssertGreaterThanOrEqual(entries[3].startedMs, firstEnds[1])
        XCTAssertEqual(try gauge("reshape_upstream_in_flight", "paced"), 0)
        XCTAssertEqual(try gauge("reshape_upstream_queue_length", "paced"), 0)
    }

    func testAFetchWaitingPastTheQueueTimeoutIs503WithRetryAfter() throws {
        let holder = try send("/brief/1500/holder")
        try Self.upstream.waitForEntries("/delay/1500/echo/brief-holder", count: 1)
        let started = Date()
        let waited = try RawHTTP.get(port: port, "/brief/10/waiter")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(waited.status, 503, waited.text)
        XCTAssertEqual(waited.json["code"] as? String, "upstream-saturated")
        XCTAssertEqual(waited.header("Retry-After"), "1")
        XCTAssertGreaterThanOrEqual(seconds, 0.28, "it waited the queue's timeout")
        XCTAssertLessThan(seconds, 1.2, "and no longer")
        XCTAssertEqual(try answer(holder).status, 200)
        XCTAssertTrue(try Self.upstream.entries("/delay/10/echo/brief-waiter").isEmpty)
        // The place is free again: the next fetch starts at once.
        XCTAssertEqual(try RawHTTP.get(port: port, "/brief/10/after").status, 200)
    }

    func testAClientLeavingTheQueueFreesItsPlace() throws {
        let first = try send("/held/1500/a")
        let second = try send("/held/1500/b")
        try Self.upstream.waitForEntries("/delay/1500/echo/held-", count: 2)
        let leaving = try send("/held/10/leaver")
        try waitForQueue("held", 1)
        let staying = try send("/held/10/stayer")
        try waitForQueue("held", 2)
        leaving.close()
        try waitForQueue("held", 1)
        // Its place in the queue is free: the next one waits instead of being refused.
        let next = try send("/held/10/next")
        try waitForQueue("held", 2)
        for client in [first, second, staying, next] {
            let response = try answer(client)
            XCTAssertEqual(response.status, 200, response.text)
        }
        XCTAssertTrue(try Self.upstream.entries("/delay/10/echo/held-leaver").isEmpty, "the leaver never fetched")
        let fetched = try Self.upstream.entries("/delay/10/echo/held-").map(\.target)
        XCTAssertEqual(Set(fetched), ["/delay/10/echo/held-stayer", "/delay/10/echo/held-next"])
        XCTAssertEqual(try gauge("reshape_upstream_in_flight", "held"), 0)
    }

    func testAFetchHoldsItsPlaceThroughItsRetry() throws {
        // Retries count as fetches: the queued one starts only after the first's retry.
        let first = try send("/retried/a")
        try Self.upstream.waitForEntries("/delay/300/fault/status-once/503/retried-a", count: 1)
        let second = try send("/retried/b")
        try waitForQueue("retried", 1)
        XCTAssertEqual(try answer(first).status, 200)
        XCTAssertEqual(try answer(second).status, 200)
        let tags = try Self.upstream.entries("/delay/300/fault/status-once/503/retried-").map { $0.target.suffix(1) }
        XCTAssertEqual(tags, ["a", "a", "b", "b"], "each fetch's two attempts, never interleaved")
    }
}
