import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// `--cache-redis` end to end: a real `redis-server` on a free loopback port, two `reshape
/// serve` processes sharing it, and the demo upstream counting what reaches it.
final class SharedCacheTests: XCTestCase {

    private func rules(_ upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)" }
        routes:
          - name: shared
            request: GET /shared/{tag}
            upstream: demo
            path: /echo/{tag}
            cache: { ttl: 60s }
            transform: [ { keep: [path] } ]
        """
    }

    private func upstreamRequests(_ upstream: DemoUpstream, _ prefix: String) throws -> Int {
        try upstream.log().filter { ($0["target"] as? String ?? "").hasPrefix(prefix) }.count
    }

    private func sharedOutcome(_ server: ReshapeServer, _ outcome: String) throws -> Int {
        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        let prefix = "reshape_cache_shared_total{outcome=\"\(outcome)\"} "
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    func testTwoReplicasShareOneAnswerAndLoseNoRequestWhenRedisDies() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer { redis.stop() }
        let arguments = ["--cache-redis", "redis://127.0.0.1:\(redisPort)/0", "--workers", "2"]
        let first = try ReshapeServer(rules: rules(upstream.port), arguments: arguments)
        defer { first.stop() }
        let second = try ReshapeServer(rules: rules(upstream.port), arguments: arguments)
        defer { second.stop() }
        try waitForRedisClients(port: redisPort, count: 4)

        let answer = try RawHTTP.get(port: first.port, "/shared/one")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("Reshape-Cache"), "miss")
        try waitForRedisKeys(port: redisPort, count: 1)
        // The store is fire-and-forget: give it a moment to land.
        var fromRedis: RawHTTP.Response?
        try waitUntil(timeout: 2.5) {
            let response = try RawHTTP.get(port: second.port, "/shared/other-\(UUID().uuidString.prefix(4))")
            XCTAssertEqual(response.status, 200)
            let shared = try RawHTTP.get(port: second.port, "/shared/one")
            if shared.header("Reshape-Cache") == "hit" { fromRedis = shared }
            return fromRedis != nil
        }
        let shared = try XCTUnwrap(fromRedis, "the second replica never answered from Redis")
        XCTAssertEqual(shared.body, answer.body)
        XCTAssertEqual(
            try upstreamRequests(upstream, "/echo/one"), 1, "the second replica answered without the upstream")

        // Redis goes away mid-run: every request is still answered, from the cache or the upstream.
        var statuses: [Int] = []
        for index in 0..<40 {
            if index == 10 { redis.stop() }
            statuses.append(try RawHTTP.get(port: first.port, "/shared/after-\(index % 20)").status)
            statuses.append(try RawHTTP.get(port: second.port, "/shared/one").status)
        }
        XCTAssertEqual(Set(statuses), [200], "\(statuses)")
        let metrics = try RawHTTP.get(port: first.port, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains(#"reshape_cache_shared_total{outcome="error"}"#), metrics)
        XCTAssertEqual(
            first.child.stderr.components(separatedBy: "shared cache unavailable").count - 1, 2,
            "logged once per worker, not per request: \(first.child.stderr)")
    }

    /// A Redis that stops answering (paused, as a blackholed one) costs each lookup its
    /// timeout only until a few in a row give up: then the connection is dropped, the outage
    /// logged, and lookups answer at once; once Redis is back, the replicas share again.
    func testAHungRedisIsDroppedAndUsedAgainWhenBack() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer {
            kill(redis.process.processIdentifier, SIGCONT)
            redis.stop()
        }
        let arguments = [
            "--cache-redis", "redis://127.0.0.1:\(redisPort)/0", "--cache-redis-timeout", "50", "--workers", "1",
        ]
        let first = try ReshapeServer(rules: rules(upstream.port), arguments: arguments)
        defer { first.stop() }
        let second = try ReshapeServer(rules: rules(upstream.port), arguments: arguments)
        defer { second.stop() }
        try waitForRedisClients(port: redisPort, count: 2)
        XCTAssertEqual(try RawHTTP.get(port: first.port, "/shared/warm").status, 200)
        let unavailableBefore = try sharedOutcome(first, "unavailable")

        XCTAssertEqual(kill(redis.process.processIdentifier, SIGSTOP), 0)
        for index in 0..<12 {
            let response = try RawHTTP.get(port: first.port, "/shared/hung-\(index)")
            XCTAssertEqual(response.status, 200, "a hung Redis fails no request")
        }
        try first.child.waitFor(5, "the hung connection dropped") {
            $0.stderr.contains("shared cache unavailable")
                && $0.stderr.contains("no answer to 8 cache lookups in a row")
        }
        // Dropped: lookups are answered at once as unavailable, not after a timeout each.
        for index in 0..<5 {
            XCTAssertEqual(try RawHTTP.get(port: first.port, "/shared/down-\(index)").status, 200)
        }
        XCTAssertGreaterThanOrEqual(try sharedOutcome(first, "unavailable") - unavailableBefore, 4)

        // A paused Redis still accepts the reconnection (each second) but never answers on it:
        // the outage is not over, and not logged again.
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(first.child.stderr.contains("reachable again"), first.child.stderr)

        XCTAssertEqual(kill(redis.process.processIdentifier, SIGCONT), 0)
        try first.child.waitFor(5, "the outage over") { $0.stderr.contains("shared cache reachable again") }
        XCTAssertEqual(
            first.child.stderr.components(separatedBy: "shared cache unavailable").count - 1, 1,
            "one outage, logged once: \(first.child.stderr)")
        var round = 0
        let sharedAgain = try waitUntil(timeout: 10) {
            round += 1
            XCTAssertEqual(try RawHTTP.get(port: first.port, "/shared/back-\(round)").status, 200)
            Thread.sleep(forTimeInterval: 0.2)
            return try RawHTTP.get(port: second.port, "/shared/back-\(round)").header("Reshape-Cache") == "hit"
        }
        XCTAssertTrue(sharedAgain, "the replicas share again once Redis answers")
    }
}
