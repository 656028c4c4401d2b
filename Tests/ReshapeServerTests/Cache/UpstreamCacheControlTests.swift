import Foundation
import ReshapeTestSupport
import XCTest

/// `cache: { upstream-cache-control: ... }` end to end: the demo upstream marks every read
/// `Cache-Control: no-cache`, as Firebase's front end does, and its log counts what reached it.
final class UpstreamCacheControlTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var server: ReshapeServer!

    override func setUpWithError() throws {
        upstream = try DemoUpstream()
        server = try ReshapeServer(
            rules: """
                upstreams:
                  demo: { url: "http://127.0.0.1:\(upstream.port)", timeout: 3s }
                routes:
                  - { name: honoured, request: "GET /honoured", upstream: demo, path: /users.json, cache: { ttl: 30s }, transform: [] }
                  - name: ignored
                    request: GET /ignored
                    upstream: demo
                    path: /scores.json
                    cache: { ttl: 30s, upstream-cache-control: ignore }
                    transform: []
                """, arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    func testTheDemoUpstreamMarksItsReadsNoCacheAsFirebaseDoes() throws {
        let read = try RawHTTP.get(port: upstream.port, "/users.json")
        XCTAssertEqual(read.header("Cache-Control"), "no-cache")
    }

    func testIgnoreCachesWhatTheUpstreamMarksNoCache() throws {
        let first = try RawHTTP.get(port: server.port, "/ignored")
        let second = try RawHTTP.get(port: server.port, "/ignored")
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Reshape-Cache"), "miss")
        XCTAssertEqual(second.header("Reshape-Cache"), "hit")
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(try upstream.entries("/scores.json").count, 1, "one upstream request for two GETs")
        XCTAssertEqual(try skipped("ignored", "no-cache"), 0)
    }

    func testByDefaultANoCacheAnswerIsFetchedEveryTimeCountedAndSaidOnce() throws {
        for _ in 0..<3 {
            let response = try RawHTTP.get(port: server.port, "/honoured")
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Reshape-Cache"), "miss")
        }
        XCTAssertEqual(try upstream.entries("/users.json").count, 3)
        XCTAssertEqual(try skipped("honoured", "no-cache"), 3)
        // A client revalidating gets a 304 from a fetch that was not stored either: counted.
        let tag = try XCTUnwrap(try RawHTTP.get(port: server.port, "/honoured").header("ETag"))
        let revalidated = try RawHTTP.get(port: server.port, "/honoured", headers: ["If-None-Match: \(tag)"])
        XCTAssertEqual(revalidated.status, 304)
        XCTAssertEqual(try skipped("honoured", "no-cache"), 5)
        let notice = "route honoured: answers are not cached because an upstream says Cache-Control: no-cache"
        try server.child.waitFor(5, "the notice") { $0.stderr.contains(notice) }
        XCTAssertEqual(server.child.stderr.components(separatedBy: notice).count - 1, 1, "said once per route")
        XCTAssertTrue(server.child.stderr.contains("upstream-cache-control: ignore"), "it names the setting")
    }

    private func skipped(_ route: String, _ reason: String) throws -> Int {
        let text = try RawHTTP.get(port: server.adminPort, "/_reshape/metrics").text
        let prefix = "reshape_cache_skipped_total{route=\"\(route)\",reason=\"\(reason)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? -1
    }
}
