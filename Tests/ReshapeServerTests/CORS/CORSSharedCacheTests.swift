import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// A cached answer shared through Redis by two replicas is shared by every origin: the CORS
/// headers of the request that stored it are not in it, and each request gets its own.
final class CORSSharedCacheTests: XCTestCase {
    func testAnAnswerFromRedisCarriesTheCORSHeadersOfItsOwnRequestOnly() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer { redis.stop() }
        let rules = """
            upstreams:
              demo: { url: "http://127.0.0.1:\(upstream.port)" }
            cors:
              origins: ["http://app.test", "http://other.test"]
              expose-headers: [X-Extra]
            routes:
              - name: shared
                request: GET /shared
                upstream: demo
                path: /echo/shared
                cache: { ttl: 60s }
                transform: [ { keep: [path] } ]
            """
        let arguments = ["--cache-redis", "redis://127.0.0.1:\(redisPort)/0", "--workers", "1"]
        let first = try ReshapeServer(rules: rules, arguments: arguments)
        defer { first.stop() }
        let second = try ReshapeServer(rules: rules, arguments: arguments)
        defer { second.stop() }
        try waitForRedisClients(port: redisPort, count: 2)

        let stored = try RawHTTP.get(port: first.port, "/shared", headers: ["Origin: http://app.test"])
        XCTAssertEqual(stored.header("Reshape-Cache"), "miss")
        try waitForRedisKeys(port: redisPort, count: 1)
        XCTAssertEqual(stored.header("Access-Control-Allow-Origin"), "http://app.test")
        var fromRedis: RawHTTP.Response?
        try waitUntil(timeout: 2.5) {
            let answer = try RawHTTP.get(port: second.port, "/shared")
            if answer.header("Reshape-Cache") == "hit" { fromRedis = answer }
            return fromRedis != nil
        }
        let plain = try XCTUnwrap(fromRedis, "the second replica never answered from Redis")
        XCTAssertEqual(plain.body, stored.body)
        XCTAssertTrue(plain.headers.allSatisfy { !$0.0.lowercased().hasPrefix("access-control-") }, "\(plain.headers)")
        XCTAssertEqual(plain.header("Vary"), "Origin")
        let other = try RawHTTP.get(port: second.port, "/shared", headers: ["Origin: http://other.test"])
        XCTAssertEqual(other.header("Reshape-Cache"), "hit")
        XCTAssertEqual(other.header("Access-Control-Allow-Origin"), "http://other.test")
        XCTAssertEqual(other.header("Vary"), "Origin", "Origin once")
        XCTAssertEqual(try upstream.log().filter { ($0["target"] as? String) == "/echo/shared" }.count, 1)
    }

}
