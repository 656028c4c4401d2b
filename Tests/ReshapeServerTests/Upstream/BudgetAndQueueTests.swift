import Foundation
import ReshapeTestSupport
import XCTest

/// The memory budget and an upstream's `max-in-flight` together (issue 29): neither waits on
/// the other. A fetch takes its place first and reserves its bytes only once it can start.
final class BudgetAndQueueTests: XCTestCase {
    /// Ten requests at once of a route not seen yet (64 KiB reserved each), to an upstream with
    /// two places, whose 150 KB bodies need about 600 KB each of a 1 MiB budget. Before, each
    /// fetch reserved first, then queued for a place: the eight in the queue held 512 KiB
    /// while the two with places were paused for room those bytes took, and nothing moved
    /// until the queue's timeout (5 s) answered the eight 503. Now the queued hold nothing,
    /// and every answer is a 200 well before that timeout.
    func testQueuedFetchesHoldNoBytesThatTheFetchesWithPlacesWaitFor() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  narrow: { url: "http://127.0.0.1:\(upstream.port)", max-in-flight: 2, queue: { size: 16, timeout: 5s } }
                routes:
                  - { name: narrow, request: "GET /narrow/{tag}", upstream: narrow, path: "/delay/100/fault/big", forward-query: [bytes, tag], timeout: 10s, transform: [] }
                """,
            arguments: ["--workers", "2", "--max-inflight-bytes", "1MiB"])
        defer { server.stop() }
        let port = server.port
        let started = Date()
        let answers = Self.atOnce(10) { index in
            (try? RawHTTP.get(port: port, "/narrow/n\(index)?bytes=150000&tag=n\(index)").status) ?? 0
        }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(answers, Array(repeating: 200, count: 10))
        XCTAssertLessThan(seconds, 3.5, "answered well before the queue's timeout")
        let metrics = try RawHTTP.get(port: port, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains("\nreshape_inflight_waiting 0\n"), metrics)
        XCTAssertTrue(
            try waitUntil(timeout: 2) {
                try RawHTTP.get(port: port, "/_reshape/metrics").text.contains("\nreshape_inflight_bytes 0\n")
            }, "all given back")
    }

    /// A request whose follow-ups (`expand`) wait for the upstream's one place holds its first
    /// fetch's bytes meanwhile; the place may be held by another request's first fetch, waiting
    /// for room those bytes take. The budget counts them as held by a waiter, so that fetch
    /// goes (past the budget if it must) instead of waiting out its route's timeout for room
    /// that would come back only after it.
    func testARequestWaitingForAPlaceDoesNotHoldUpTheFetchWithThePlace() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  one: { url: "http://127.0.0.1:\(upstream.port)", max-in-flight: 1, queue: { size: 32, timeout: 5s } }
                routes:
                  - name: posts
                    request: "GET /posts/{tag}"
                    upstream: one
                    path: /posts.json
                    timeout: 3s
                    transform:
                      - keyed-to-array: { key: postId }
                      - expand: { key: authorId, fetch: { upstream: one, path: "/users/{value}.json" }, as: author, concurrency: 2 }
                """, arguments: ["--workers", "2", "--max-inflight-bytes", "64KiB"])
        defer { server.stop() }
        let port = server.port
        for round in 0..<2 {
            let answers = Self.atOnce(4) { index in
                let started = Date()
                let status = (try? RawHTTP.get(port: port, "/posts/r\(round)-\(index)").status) ?? 0
                return (status, Date().timeIntervalSince(started))
            }
            XCTAssertEqual(answers.map(\.0), [200, 200, 200, 200], "round \(round)")
            XCTAssertLessThan(answers.map(\.1).max() ?? 0, 2, "round \(round): none waited out its route's timeout")
        }
        XCTAssertTrue(
            try waitUntil(timeout: 2) {
                try RawHTTP.get(port: port, "/_reshape/metrics").text.contains("\nreshape_inflight_bytes 0\n")
            }, "all given back")
    }

    /// One connection pipelines a request to an upstream whose one place is taken, then eight
    /// whose 300 KB answers fill the 1 MiB budget. Those answers wait behind the first (answers
    /// go out in order), holding their bytes; when the first gets its place, it finds the budget
    /// full of bytes that only its own answer would let go. Before, nothing counted them as
    /// held by a waiter: it waited out its route's timeout (4 s) and was answered 503
    /// `load-shed`. Now they count as stuck, the first goes, and every answer is a 200 soon.
    func testAnswersWaitingBehindAnEarlierRequestDoNotHoldUpItsFetch() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  narrow: { url: "http://127.0.0.1:\(upstream.port)", max-in-flight: 1, queue: { size: 16, timeout: 5s } }
                  wide: { url: "http://127.0.0.1:\(upstream.port)" }
                routes:
                  - { name: slow, request: "GET /slow/{tag}", upstream: narrow, path: "/delay/1000/fault/big", forward-query: [bytes, tag], timeout: 4s, transform: [] }
                  - { name: quick, request: "GET /quick/{tag}", upstream: narrow, path: "/fault/big", forward-query: [bytes, tag], timeout: 4s, transform: [] }
                  - { name: large, request: "GET /large/{tag}", upstream: wide, path: "/fault/big", forward-query: [bytes, tag], timeout: 4s, transform: [] }
                """,
            arguments: ["--workers", "1", "--max-inflight-bytes", "1MiB"])
        defer { server.stop() }
        let port = server.port
        let blocker = Thread { _ = try? RawHTTP.get(port: port, "/slow/b?bytes=1000&tag=b") }
        blocker.start()
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        var client = try RawHTTP(port: port)
        defer { client.close() }
        let first = "GET /quick/q?bytes=1000&tag=q HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let rest = (2...9).map { "GET /large/l\($0)?bytes=300000&tag=l\($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }
        client.send(first + rest.joined())
        let statuses = (1...9).map { _ in client.readResponse()?.status ?? 0 }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(statuses, Array(repeating: 200, count: 9))
        XCTAssertLessThan(seconds, 3, "answered well before the route's timeout")
        XCTAssertTrue(
            try waitUntil(timeout: 3) {
                try RawHTTP.get(port: port, "/_reshape/metrics").text.contains("\nreshape_inflight_bytes 0\n")
            }, "all given back")
    }

    /// Runs `count` calls of `body` at once, each on a thread of its own (the global queues
    /// may run only as many at once as there are cores), and returns their results in order.
    static func atOnce<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
        let lock = NSLock()
        nonisolated(unsafe) var results: [Int: Result] = [:]
        let threads = (0..<count).map { index in
            Thread {
                let result = body(index)
                lock.withLock { results[index] = result }
            }
        }
        for thread in threads { thread.start() }
        _ = waitUntil(timeout: 20) { lock.withLock { results.count == count } }
        return lock.withLock { (0..<count).compactMap { results[$0] } }
    }
}
