import Foundation
import ReshapeTestSupport
import XCTest

/// Retries end to end: `reshape serve` (one worker, a fresh one per test, so its first fetch
/// opens a new connection and curl's own retry of a reused one never muddles the count) in
/// front of the demo upstream's fault modes, whose log says what reached it.
final class RetryTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    private var server: ReshapeServer!

    override class func setUp() {
        super.setUp()
        upstream = try? DemoUpstream()
    }

    override class func tearDown() {
        upstream?.child.stop()
        super.tearDown()
    }

    override func setUpWithError() throws {
        let upstream = try XCTUnwrap(Self.upstream, "the demo upstream did not start")
        server = try ReshapeServer(rules: Self.rules(upstream.port), arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
    }

    static func rules(_ port: Int) -> String {
        """
        upstreams:
          demo:
            url: http://127.0.0.1:\(port)
            timeout: 3s
            retry: { attempts: 2, on: [reset, connect-failure, 502, 503, 504], budget: 20% }
          plain:
            url: http://127.0.0.1:\(port)
          nowhere:
            url: http://127.0.0.1:1
          burst:
            url: http://127.0.0.1:\(port)
            retry: { attempts: 2, on: [reset], budget: 20% }
        routes:
          - { name: reset-get, request: "GET /reset/{tag}", upstream: demo, path: "/fault/reset-once/{tag}", transform: [] }
          - { name: reset-post, request: "POST /reset/{tag}", upstream: demo, path: "/fault/reset-once/{tag}", transform: [] }
          - { name: reset-put, request: "PUT /reset/{tag}", upstream: demo, path: "/fault/reset-once/{tag}", idempotent: true, transform: [] }
          - { name: reset-plain, request: "GET /plain-reset/{tag}", upstream: plain, path: "/fault/reset-once/{tag}", transform: [] }
          - name: status-once
            request: "GET /status-once/{status}/{tag}"
            upstream: demo
            path: "/fault/status-once/{status}/{tag}"
            forward-query: [retry-after]
            timeout: 1500ms
            transform: []
          - { name: status-plain, request: "GET /plain-status/{tag}", upstream: plain, path: "/fault/status-once/503/{tag}", transform: [] }
          - { name: refused, request: "GET /refused", upstream: nowhere, path: "/x.json", transform: [] }
          - { name: users, request: "GET /users", upstream: demo, path: "/users.json", transform: [] }
          - { name: closes, request: "GET /closes/{n}", upstream: burst, path: "/fault/close/{n}", transform: [] }
        """
    }

    private var port: Int { server.port }

    private func retries(_ upstream: String, _ reason: String) throws -> Int {
        let text = try RawHTTP.get(port: port, "/_reshape/metrics").text
        let prefix = "reshape_upstream_retries_total{upstream=\"\(upstream)\",reason=\"\(reason)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? -1
    }

    func testAResetGetIsRetriedAndAnswered() throws {
        let response = try RawHTTP.get(port: port, "/reset/get-1")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(try Self.upstream.entries("/fault/reset-once/get-1").count, 2)
        XCTAssertEqual(try retries("demo", "reset"), 1)
    }

    func testAResetPostIsNeverRetried() throws {
        let response = try RawHTTP.request(port: port, "POST", "/reset/post-1")
        XCTAssertEqual(response.status, 502, response.text)
        XCTAssertEqual(response.json["code"] as? String, "upstream-failed")
        let seen = try Self.upstream.entries("/fault/reset-once/post-1")
        XCTAssertEqual(seen.map(\.method), ["POST"], "the upstream saw exactly one POST")
        XCTAssertEqual(try retries("demo", "reset"), 0)
    }

    func testAPutIsRetriedOnlyWhereTheRouteSaysIdempotent() throws {
        let response = try RawHTTP.request(port: port, "PUT", "/reset/put-1")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(try Self.upstream.entries("/fault/reset-once/put-1").map(\.method), ["PUT", "PUT"])
    }

    func testWithoutRetryAResetIsStillTriedOnceMore() throws {
        XCTAssertEqual(try RawHTTP.get(port: port, "/plain-reset/plain-1").status, 200)
        XCTAssertEqual(try retries("plain", "reset"), 1)
    }

    func testAListedStatusIsRetriedAndAnUnlistedOneIsNot() throws {
        let retried = try RawHTTP.get(port: port, "/status-once/503/s-1")
        XCTAssertEqual(retried.status, 200, retried.text)
        XCTAssertEqual(try Self.upstream.entries("/fault/status-once/503/s-1").count, 2)
        XCTAssertEqual(try retries("demo", "503"), 1)

        let notListed = try RawHTTP.get(port: port, "/status-once/500/s-2")
        XCTAssertEqual(notListed.status, 502)
        XCTAssertEqual(try Self.upstream.entries("/fault/status-once/500/s-2").count, 1)

        let defaultRule = try RawHTTP.get(port: port, "/plain-status/s-3")
        XCTAssertEqual(defaultRule.status, 502, "statuses are retried only when listed")
        XCTAssertEqual(try Self.upstream.entries("/fault/status-once/503/s-3").count, 1)
    }

    func testARetryAfterThatFitsIsWaitedForAndOneLongerThanTheRouteTimeoutIsNot() throws {
        var started = Date()
        let waited = try RawHTTP.get(port: port, "/status-once/503/ra-1?retry-after=1")
        XCTAssertEqual(waited.status, 200, waited.text)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.9, "the upstream's Retry-After was honoured")
        XCTAssertEqual(try Self.upstream.entries("/fault/status-once/503/ra-1").count, 2)

        started = Date()
        let givenUp = try RawHTTP.get(port: port, "/status-once/503/ra-2?retry-after=5")
        XCTAssertEqual(givenUp.status, 502, givenUp.text)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "not waited for: it outlasts the route's 1.5 s")
        XCTAssertEqual(try Self.upstream.entries("/fault/status-once/503/ra-2").count, 1)
    }

    func testTheBudgetRefusesRetriesUnderABurstOfFailures() throws {
        for n in 0..<20 {
            XCTAssertEqual(try RawHTTP.get(port: port, "/closes/\(n)").status, 502)
        }
        // 20 requests in the window: 20% of them is 4 retries, not the 40 that `attempts: 2` asks.
        XCTAssertEqual(try retries("burst", "reset"), 4)
        let seen = try Self.upstream.entries("/fault/close/").count
        XCTAssertGreaterThanOrEqual(seen, 24)
        XCTAssertLessThanOrEqual(seen, 25, "at most one more, if curl resent on a reused connection")
    }

    func testAClientLeavingDuringARetryWaitStopsTheRetry() throws {
        let client = try RawHTTP(port: port)
        client.send("GET /status-once/503/gone-1?retry-after=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        // Until the 503 is in and the retry waits for its second.
        try waitUntil { try retries("demo", "503") == 1 }
        client.close()
        // Past the moment the retry was due: it must not go.
        Thread.sleep(forTimeInterval: 1.3)
        XCTAssertEqual(try Self.upstream.entries("/fault/status-once/503/gone-1").count, 1, "the retry never went")
        XCTAssertEqual(try RawHTTP.get(port: port, "/status-once/503/gone-2").status, 200, "the worker serves on")
    }

    func testAResetOnAReusedConnectionIsResentByCurlAndNotCountedAsARetry() throws {
        XCTAssertEqual(try RawHTTP.get(port: port, "/users").status, 200)  // a connection to reuse
        let response = try RawHTTP.get(port: port, "/reset/reused-1")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(try Self.upstream.entries("/fault/reset-once/reused-1").count, 2)
        XCTAssertEqual(try retries("demo", "reset"), 0, "curl resent it within one try, on a new connection")
    }

    /// curl would resend a request whose reused connection turned out closed; a POST gets a
    /// connection of its own, so the upstream never sees it twice.
    func testAPostIsNeverResentByCurlOnAReusedConnection() throws {
        XCTAssertEqual(try RawHTTP.get(port: port, "/users").status, 200)  // a connection it could reuse
        let response = try RawHTTP.request(port: port, "POST", "/reset/post-reused-1")
        XCTAssertEqual(response.status, 502, response.text)
        let seen = try Self.upstream.entries("/fault/reset-once/post-reused-1")
        XCTAssertEqual(seen.map(\.method), ["POST"], "the upstream saw exactly one POST")
    }

    func testARefusedConnectionIsTriedOnceMoreByDefault() throws {
        let response = try RawHTTP.get(port: port, "/refused")
        XCTAssertEqual(response.status, 502)
        XCTAssertEqual(response.json["code"] as? String, "upstream-unreachable")
        XCTAssertEqual(try retries("nowhere", "connect-failure"), 1)
    }
}
