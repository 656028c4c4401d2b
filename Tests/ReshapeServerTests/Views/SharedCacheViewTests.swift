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
        let arguments = ["--cache-redis", "redis://127.0.0.1:\(redisPort)/0", "--cache-redis-timeout", "1000"]
        let rules = ClientViewTests.rules(port: upstream.port)
        let first = try ReshapeServer(rules: rules, arguments: arguments)
        defer { first.stop() }
        let second = try ReshapeServer(rules: rules, arguments: arguments)
        defer { second.stop() }

        // The first replica's client asks for a small view: what it stores must still be the
        // whole answer, not the view it sent (a view stored would lose records and fields).
        let view = try RawHTTP.get(port: first.port, "/cached-people?limit=1&fields=name")
        XCTAssertEqual(view.status, 200, view.text)
        XCTAssertEqual(view.header("Reshape-Cache"), "miss")
        XCTAssertEqual((view.json["objects"] as? [[String: Any]])?.count, 1)
        // The store is fire-and-forget: wait until Redis holds it (an inline DBSIZE).
        let stored = try waitUntil(timeout: 2.5) {
            let client = try RawHTTP(port: redisPort)
            defer { client.close() }
            client.send("DBSIZE\r\nQUIT\r\n")
            return !String(decoding: client.readAll(), as: UTF8.self).hasPrefix(":0")
        }
        XCTAssertTrue(stored, "the first replica never stored its answer")
        let plain = try RawHTTP.get(port: second.port, "/cached-people")
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertEqual(plain.header("Reshape-Cache"), "hit", "the answer in Redis")
        let direct = try RawHTTP.get(port: first.port, "/people")
        XCTAssertEqual(direct.status, 200, direct.text)
        let records = plain.json["objects"] as? [[String: Any]] ?? []
        let complete = direct.json["objects"] as? [[String: Any]] ?? []
        XCTAssertGreaterThan(complete.count, 1)
        XCTAssertEqual(records.count, complete.count, "every record, not the stored view's one")
        XCTAssertEqual(
            records.map { Set($0.keys) }, complete.map { Set($0.keys) }, "every field, not only the name")
        let shared = try RawHTTP.get(port: second.port, "/cached-people?fields=name&sort=-name")
        XCTAssertEqual(shared.status, 200, shared.text)
        XCTAssertEqual(shared.header("Reshape-Cache"), "hit", "made from the answer in Redis")
        let names = (shared.json["objects"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(names, names.sorted(by: >))
        XCTAssertEqual((shared.json["objects"] as? [[String: Any]])?.count, complete.count)
        XCTAssertEqual(
            try upstream.log().filter { ($0["target"] as? String ?? "").hasPrefix("/users.json") }.count, 2,
            "one upstream fetch for both replicas' cached views (and one for the uncached /people)")
    }

}
