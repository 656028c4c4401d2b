import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// A client view of an answer another replica stored in Redis (issue 26): the shared cache
/// keeps the full answer under a key without the client query.
final class SharedCacheViewTests: XCTestCase {
    func testAReplicaMakesViewsOfTheAnswerAnotherStoredInRedis() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer { redis.stop() }
        let arguments = ["--cache-redis", "redis://127.0.0.1:\(redisPort)/0"]
        let rules = ClientViewTests.rules(port: upstream.port)
        let first = try ReshapeServer(rules: rules, arguments: arguments)
        defer { first.stop() }
        let second = try ReshapeServer(rules: rules, arguments: arguments)
        defer { second.stop() }

        let full = try RawHTTP.get(port: first.port, "/cached-people?sort=name")
        XCTAssertEqual(full.status, 200, full.text)
        XCTAssertEqual(full.header("Reshape-Cache"), "miss")
        // The store is fire-and-forget: wait until Redis holds it (an inline DBSIZE).
        let stored = try waitUntil(timeout: 2.5) {
            var client = try RawHTTP(port: redisPort)
            defer { client.close() }
            client.send("DBSIZE\r\nQUIT\r\n")
            return !String(decoding: client.readAll(), as: UTF8.self).hasPrefix(":0")
        }
        XCTAssertTrue(stored, "the first replica never stored its answer")
        let shared = try RawHTTP.get(port: second.port, "/cached-people?fields=name&sort=-name")
        XCTAssertEqual(shared.status, 200, shared.text)
        XCTAssertEqual(shared.header("Reshape-Cache"), "hit", "made from the answer in Redis")
        let names = (shared.json["objects"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(names, names.sorted(by: >))
        XCTAssertFalse(names.isEmpty)
        XCTAssertEqual(
            try upstream.log().filter { ($0["target"] as? String ?? "").hasPrefix("/users.json") }.count, 1,
            "one upstream fetch for both replicas' views")
    }

}
