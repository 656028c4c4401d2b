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

    func testTwoReplicasShareOneAnswerAndLoseNoRequestWhenRedisDies() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer { redis.stop() }
        let arguments = ["--cache-redis", "redis://127.0.0.1:\(redisPort)/0"]
        let first = try ReshapeServer(rules: rules(upstream.port), arguments: arguments)
        defer { first.stop() }
        let second = try ReshapeServer(rules: rules(upstream.port), arguments: arguments)
        defer { second.stop() }

        let answer = try RawHTTP.get(port: first.port, "/shared/one")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("Reshape-Cache"), "miss")
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
}
