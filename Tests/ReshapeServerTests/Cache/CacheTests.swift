import Foundation
import ReshapeServer
import ReshapeTestSupport
import XCTest

/// Issue 11 end to end: `reshape serve` (two workers) in front of the real demo upstream
/// process; the upstream's request log counts what reached it.
final class CacheTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: ReshapeServer!

    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", timeout: 3s }
        routes:
          - name: slow-users
            request: GET /slow-users/{tag}
            upstream: demo
            path: /delay/400/echo/{tag}
            cache: { ttl: 30s }
            transform: [ { keep: [path] } ]
          - name: refreshing
            request: GET /refreshing/{tag}
            upstream: demo
            path: /delay/400/echo/{tag}
            cache: { ttl: 1s, stale-while-revalidate: 30s }
            transform: [ { keep: [target] } ]
          - name: per-user
            request: GET /per-user/{tag}
            upstream: demo
            path: /echo/{tag}
            forward-headers: [Authorization]
            cache: { ttl: 30s }
            transform: [ { select: /headers }, { keep: [authorization] } ]
          - name: hits
            request: GET /hits/{tag}
            upstream: demo
            path: /echo/{tag}
            cache: { ttl: 30s }
            cors: { origins: ["https://app.example.com"] }
            transform: []
          - name: flood
            request: GET /flood/{tag}
            upstream: demo
            path: /echo/{tag}
            forward-query: [pad]
            cache: { ttl: 30s }
            transform: []
        """
    }

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            server = try ReshapeServer(
                rules: rules(upstreamPort: upstream.port), arguments: ["--cache-bytes", "256KiB"])
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

    private func upstreamRequests(_ prefix: String) throws -> Int {
        try Self.upstream.log().filter { ($0["target"] as? String ?? "").hasPrefix(prefix) }.count
    }

    func testTwoHundredConcurrentRequestsMakeOneUpstreamRequest() throws {
        let results = Mutex200()
        let port = self.port
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            let response = try? RawHTTP.get(port: port, "/slow-users/crowd")
            results.add(response)
        }
        let responses = results.all
        XCTAssertEqual(responses.count, 200)
        XCTAssertTrue(responses.allSatisfy { $0?.status == 200 }, "\(responses.map { $0?.status ?? 0 })")
        XCTAssertEqual(Set(responses.compactMap { $0?.body }).count, 1, "every client got the same answer")
        let kinds = Set(responses.compactMap { $0?.header("Reshape-Cache") })
        XCTAssertTrue(kinds.isSubset(of: ["miss", "coalesced", "hit"]), "\(kinds)")
        XCTAssertEqual(responses.filter { $0?.header("Reshape-Cache") == "miss" }.count, 1)
        XCTAssertEqual(try upstreamRequests("/delay/400/echo/crowd"), 1, "one upstream request for 200 clients")
    }

    func testAMatchingIfNoneMatchIs304() throws {
        let first = try RawHTTP.get(port: port, "/slow-users/etag")
        let tag = try XCTUnwrap(first.header("ETag"))
        let again = try RawHTTP.get(port: port, "/slow-users/etag", headers: ["If-None-Match: \(tag)"])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.header("Reshape-Cache"), "hit")
        XCTAssertNotNil(again.header("Age"))
    }

    /// A plain GET that a fresh entry answers is given at dispatch from the head its entry
    /// kept (`CacheHit`); one with an `If-None-Match` that matches nothing takes the full
    /// request lifecycle. On the wire both are the same answer, header for header.
    func testAHitAnsweredAtDispatchIsWhatTheFullPathAnswers() throws {
        let miss = try RawHTTP.get(port: port, "/hits/same")
        XCTAssertEqual(miss.header("Reshape-Cache"), "miss")
        for extra in [[], ["Accept-Encoding: gzip"], ["Origin: https://app.example.com"], ["Origin: https://x.test"]] {
            var compared = false
            // Both within one second of the entry's life, so that their Age is the same.
            for _ in 0..<5 where !compared {
                var connection = try RawHTTP(port: port)
                defer { connection.close() }
                let head = (["GET /hits/same HTTP/1.1", "Host: test"] + extra).joined(separator: "\r\n")
                connection.send(head + "\r\n\r\n")
                connection.send(head + "\r\nIf-None-Match: \"nothing\"\r\n\r\n")
                let direct = try XCTUnwrap(connection.readResponse())
                let full = try XCTUnwrap(connection.readResponse())
                guard direct.header("Age") == full.header("Age"), direct.header("Date") == full.header("Date") else {
                    continue
                }
                compared = true
                XCTAssertEqual(direct.status, 200)
                XCTAssertEqual(direct.header("Reshape-Cache"), "hit")
                XCTAssertEqual(
                    direct.headers.map { "\($0.0): \($0.1)" }, full.headers.map { "\($0.0): \($0.1)" }, "\(extra)")
                XCTAssertEqual(direct.body, full.body)
            }
            XCTAssertTrue(compared, "two answers a second apart five times over")
        }
    }

    func testAStaleAnswerIsServedAtOnceAndRefreshedOnce() throws {
        XCTAssertEqual(try RawHTTP.get(port: port, "/refreshing/swr").header("Reshape-Cache"), "miss")
        // Until the answer is past its ttl (1 s): the looks before then are hits, which change
        // nothing; the first that is not is the first of the five stale answers, timed with them.
        var started = Date()
        var stale: [RawHTTP.Response] = []
        try waitUntil(timeout: 3) {
            started = Date()
            let response = try RawHTTP.get(port: port, "/refreshing/swr")
            if response.header("Reshape-Cache") != "hit" { stale.append(response) }
            return !stale.isEmpty
        }
        for _ in 0..<4 { stale.append(try RawHTTP.get(port: port, "/refreshing/swr")) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.4, "stale answers do not wait for the 400 ms upstream")
        XCTAssertEqual(Set(stale.map { $0.header("Reshape-Cache") ?? "" }), ["stale"])
        // Until the refresh has landed: the looks before then are stale answers, which start no
        // other refresh.
        try waitUntil(timeout: 3) { try RawHTTP.get(port: port, "/refreshing/swr").header("Reshape-Cache") == "hit" }
        XCTAssertEqual(try upstreamRequests("/delay/400/echo/swr"), 2, "the first fetch and exactly one refresh")
        let refreshed = try RawHTTP.get(port: port, "/refreshing/swr")
        XCTAssertEqual(refreshed.header("Reshape-Cache"), "hit")
        XCTAssertEqual(refreshed.header("Age"), "0")
    }

    func testEachCredentialGetsItsOwnAnswer() throws {
        let ada = try RawHTTP.get(port: port, "/per-user/who", headers: ["Authorization: Bearer ada"])
        let bob = try RawHTTP.get(port: port, "/per-user/who", headers: ["Authorization: Bearer bob"])
        XCTAssertEqual(ada.text, #"{"authorization":"Bearer ada"}"#)
        XCTAssertEqual(bob.text, #"{"authorization":"Bearer bob"}"#, "bob never sees ada's cached answer")
        XCTAssertEqual(bob.header("Reshape-Cache"), "miss")
        let adaAgain = try RawHTTP.get(port: port, "/per-user/who", headers: ["Authorization: Bearer ada"])
        XCTAssertEqual(adaAgain.header("Reshape-Cache"), "hit")
        XCTAssertEqual(adaAgain.text, ada.text)
        XCTAssertEqual(try upstreamRequests("/echo/who"), 2)
    }

    func testTheMemoryBoundHoldsUnderAFloodOfDistinctKeys() throws {
        let pad = String(repeating: "x", count: 2000)
        for index in 0..<400 {
            XCTAssertEqual(try RawHTTP.get(port: port, "/flood/k\(index)?pad=\(pad)").status, 200)
        }
        let metrics = try RawHTTP.get(port: port, "/_reshape/metrics").text
        func value(_ name: String) -> Int? {
            metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
                Int($0.split(separator: " ").last ?? "")
            }
        }
        let bytes = try XCTUnwrap(value("reshape_cache_bytes"), metrics)
        XCTAssertLessThanOrEqual(bytes, 256 * 1024)
        XCTAssertGreaterThan(try XCTUnwrap(value("reshape_cache_evictions_total")), 100)
    }

    func testPurgeAnswersALocalClient() throws {
        _ = try RawHTTP.get(port: port, "/per-user/purge", headers: ["Authorization: Bearer ada"])
        var client = try RawHTTP(port: port)
        defer { client.close() }
        client.send(
            "POST /_reshape/cache/purge?route=per-user HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        let purge = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(purge.status, 200, purge.text)
        XCTAssertTrue(purge.text.contains(#""route":"per-user""#), purge.text)
        let after = try RawHTTP.get(port: port, "/per-user/purge", headers: ["Authorization: Bearer ada"])
        XCTAssertEqual(after.header("Reshape-Cache"), "miss")
    }

    /// A reload keeps the answers of routes it did not change and drops the others.
    func testAReloadDropsOnlyTheAnswersOfChangedRoutes() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        func rules(_ wrap: String) -> String {
            """
            upstreams:
              demo: { url: "http://127.0.0.1:\(upstream.port)" }
            routes:
              - { name: kept, request: GET /kept, upstream: demo, path: /echo/kept, cache: { ttl: 60s }, transform: [ { keep: [path] } ] }
              - { name: changed, request: GET /changed, upstream: demo, path: /echo/changed, cache: { ttl: 60s }, transform: [ { keep: [path] }, { wrap: \(wrap) } ] }
            """
        }
        let server = try ReshapeServer(rules: rules("v1"))
        defer { server.stop() }
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/kept").header("Reshape-Cache"), "miss")
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/changed").text, #"{"v1":{"path":"/echo/changed"}}"#)
        try server.replaceRules(rules("v2"))
        server.child.signal(SIGHUP)
        try server.child.waitFor(5, "the reload") { $0.stderr.contains("rules reloaded") }
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/kept").header("Reshape-Cache"), "hit")
        let changed = try RawHTTP.get(port: server.port, "/changed")
        XCTAssertEqual(changed.header("Reshape-Cache"), "miss")
        XCTAssertEqual(changed.text, #"{"v2":{"path":"/echo/changed"}}"#, "never the answer of the old rules")
    }

    /// Within `stale-if-error` the last good copy answers an upstream that is gone; after it, the failure.
    func testTheLastGoodCopyAnswersWhileTheUpstreamIsDown() throws {
        let upstream = try DemoUpstream()
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  demo: { url: "http://127.0.0.1:\(upstream.port)", connect-timeout: 1s }
                routes:
                  - name: resilient
                    request: GET /resilient
                    upstream: demo
                    path: /users.json
                    cache: { ttl: 1s, stale-if-error: 2s, upstream-cache-control: ignore }
                    transform: [ { keyed-to-array: { key: objectId, order: key } } ]
                """)
        defer { server.stop() }
        let good = try RawHTTP.get(port: server.port, "/resilient")
        XCTAssertEqual(good.status, 200)
        upstream.child.stop()
        // Until the answer is past its ttl (1 s): the looks before then are hits.
        var stale = good
        try waitUntil(timeout: 3) {
            stale = try RawHTTP.get(port: server.port, "/resilient")
            return stale.header("Reshape-Cache") != "hit"
        }
        XCTAssertEqual(stale.status, 200)
        XCTAssertEqual(stale.header("Reshape-Cache"), "stale")
        XCTAssertEqual(stale.body, good.body)
        // Until stale-if-error (2 s past the ttl) runs out: the looks before then are stale answers.
        try waitUntil(timeout: 4) { try RawHTTP.get(port: server.port, "/resilient").status != 200 }
        XCTAssertEqual(
            try RawHTTP.get(port: server.port, "/resilient").status, 502, "past stale-if-error the failure is answered")
    }
}

/// Responses collected from concurrent clients.
final class Mutex200: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [RawHTTP.Response?] = []
    func add(_ item: RawHTTP.Response?) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }
    var all: [RawHTTP.Response?] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
