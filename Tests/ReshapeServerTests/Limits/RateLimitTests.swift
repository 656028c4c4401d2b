import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// `limits:` end to end: `reshape serve` in front of the demo upstream, requests paced from
/// here, and the upstream's log saying which of them reached it.
final class RateLimitTests: XCTestCase {
    static func rules(_ upstreamPort: Int) -> String {
        """
        limits:
          ten: { rate: 10/s, burst: 20, key: client-address }
          per-minute: { rate: 2/m, key: header.X-Api-Key }
          loose: { rate: 100/h, key: header.X-Api-Key }
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)" }
        routes:
          - name: paced
            request: GET /paced/{tag}
            upstream: demo
            path: /echo/{tag}
            limit: [ten]
            transform: [ { keep: [path] } ]
          - name: keyed
            request: GET /keyed/{tag}
            upstream: demo
            path: /echo/{tag}
            limit: [loose, per-minute]
            transform: [ { keep: [path] } ]
          - name: live
            request: GET /live
            upstream: demo
            path: /scores.json
            live: true
            limit: [per-minute]
            transform: []
          - name: open
            request: GET /open/{tag}
            upstream: demo
            path: /echo/{tag}
            transform: [ { keep: [path] } ]
        """
    }

    private func upstreamRequests(_ upstream: DemoUpstream, _ prefix: String) throws -> Int {
        try upstream.log().filter { ($0["target"] as? String ?? "").hasPrefix(prefix) }.count
    }

    /// One GET on a kept-alive connection.
    private func get(_ client: inout RawHTTP, _ target: String, headers: [String] = []) throws -> RawHTTP.Response {
        client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        guard let response = client.readResponse() else { throw HarnessError("no response to GET \(target)") }
        return response
    }

    func testTenPerSecondWithBurstTwentyAdmitsTheBurstThenTheRate() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstream.port))
        defer { server.stop() }
        var client = try RawHTTP(port: server.port)
        defer { client.close() }

        // The burst: 25 at once, 20 admitted (one more if the first ones took a tenth of a second).
        let start = Date()
        var burstAdmitted = 0
        var refused: RawHTTP.Response?
        for index in 0..<25 {
            let response = try get(&client, "/paced/b\(index)")
            if response.status == 200 { burstAdmitted += 1 } else { refused = response }
            XCTAssertEqual(response.header("RateLimit-Policy"), "\"ten\";q=10;w=1")
        }
        let burstSeconds = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(burstAdmitted, 20)
        XCTAssertLessThanOrEqual(burstAdmitted, 20 + Int(burstSeconds * 10) + 1)
        let limited = try XCTUnwrap(refused, "the burst was never refused")
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(limited.header("Retry-After"), "1")
        XCTAssertEqual(limited.header("RateLimit"), "\"ten\";r=0;t=1")
        let problem = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(limited.body)) as? [String: Any])
        XCTAssertEqual(problem["code"] as? String, "rate-limited")
        XCTAssertEqual(problem["policy"] as? String, "ten")

        // Then the rate: a request every 25 ms for 5 s, about 10 a second admitted.
        var admitted = 0
        let paced = Date()
        var sent = 0
        while Date().timeIntervalSince(paced) < 5 {
            let response = try get(&client, "/paced/r\(sent)")
            XCTAssert(response.status == 200 || response.status == 429, "\(response.status)")
            if response.status == 200 {
                admitted += 1
                XCTAssertNotNil(response.header("RateLimit"))
            }
            sent += 1
            let next = paced.addingTimeInterval(Double(sent) * 0.025)
            let wait = next.timeIntervalSinceNow
            if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
        }
        let seconds = Date().timeIntervalSince(paced)
        // However slow the run, the requests came at least twice as often as the rate admits
        // them, so it is the limit, not the pacing, that held the count to 10 a second.
        XCTAssertGreaterThanOrEqual(Double(sent), seconds * 20, "the pacing fell behind: \(sent) sent in \(seconds) s")
        let expected = seconds * 10
        XCTAssertEqual(Double(admitted), expected, accuracy: expected * 0.1, "\(admitted) admitted in \(seconds) s")
        // No refused request reached the upstream.
        XCTAssertEqual(try upstreamRequests(upstream, "/echo/b"), burstAdmitted)
        XCTAssertEqual(try upstreamRequests(upstream, "/echo/r"), admitted)
        // An unlimited route says nothing of limits.
        let open = try get(&client, "/open/x")
        XCTAssertEqual(open.status, 200)
        XCTAssertNil(open.header("RateLimit"))

        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        XCTAssertTrue(
            metrics.contains(
                "reshape_rate_limited_total{route=\"paced\",policy=\"ten\"} \(25 - burstAdmitted + sent - admitted)"),
            metrics)
        XCTAssertTrue(metrics.contains("reshape_limit_keys 1\n"), metrics)
    }

    func testTheStricterOfTwoPoliciesAnswersAndCountsPerKey() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstream.port))
        defer { server.stop() }
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        for index in 0..<2 {
            let response = try get(&client, "/keyed/a\(index)", headers: ["X-Api-Key: alpha"])
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("RateLimit-Policy"), "\"loose\";q=100;w=3600, \"per-minute\";q=2;w=60")
        }
        let third = try get(&client, "/keyed/a2", headers: ["X-Api-Key: alpha"])
        XCTAssertEqual(third.status, 429)
        let problem = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(third.body)) as? [String: Any])
        XCTAssertEqual(problem["policy"] as? String, "per-minute")
        // One request is back in 30 s (2 a minute): the wait says so, whole seconds, rounded up.
        let retryAfter = try XCTUnwrap(Int(third.header("Retry-After") ?? ""))
        XCTAssert((29...30).contains(retryAfter), "Retry-After \(retryAfter)")
        XCTAssertEqual(third.header("RateLimit"), "\"loose\";r=98;t=0, \"per-minute\";r=0;t=\(retryAfter)")
        // Another key has its own bucket; no refused request reached the upstream.
        XCTAssertEqual(try get(&client, "/keyed/b", headers: ["X-Api-Key: beta"]).status, 200)
        XCTAssertEqual(try upstreamRequests(upstream, "/echo/a"), 2)
    }

    func testBrowsersMaySendTheKeyHeaderAndReadTheLimitHeaders() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let rules = Self.rules(upstream.port) + "\ncors: { origins: [\"https://app.example.com\"] }\n"
        let server = try ReshapeServer(rules: rules)
        defer { server.stop() }
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send(
            "OPTIONS /keyed/x HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://app.example.com\r\n"
                + "Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: x-api-key\r\n\r\n")
        let preflight = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(preflight.status, 204)
        XCTAssertTrue(
            preflight.header("Access-Control-Allow-Headers")?.contains("X-Api-Key") == true,
            "\(preflight.headers)")
        let answer = try get(&client, "/keyed/y", headers: ["Origin: https://app.example.com", "X-Api-Key: k"])
        XCTAssertEqual(answer.status, 200)
        let exposed = answer.header("Access-Control-Expose-Headers") ?? ""
        XCTAssertTrue(exposed.contains("RateLimit-Policy") && exposed.contains("RateLimit"), exposed)
        // An event stream's head too.
        let stream = try EventStreamClient(
            port: server.port, "/live", headers: ["Origin: https://app.example.com", "X-Api-Key: k"])
        defer { stream.close() }
        try stream.readHead()
        XCTAssertEqual(stream.status, 200)
        XCTAssertNotNil(stream.header("RateLimit"))
        let streamExposed = stream.header("Access-Control-Expose-Headers") ?? ""
        XCTAssertTrue(
            streamExposed.contains("RateLimit-Policy") && streamExposed.contains("RateLimit"), streamExposed)
    }

    func testAnEventStreamsHeadSaysWhereItsClientStands() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstream.port))
        defer { server.stop() }
        var streams: [EventStreamClient] = []
        defer { for stream in streams { stream.close() } }
        for left in [1, 0] {
            let stream = try EventStreamClient(port: server.port, "/live", headers: ["X-Api-Key: s"])
            streams.append(stream)
            try stream.readHead()
            XCTAssertEqual(stream.status, 200)
            XCTAssertEqual(stream.header("Content-Type"), "text/event-stream")
            XCTAssertEqual(stream.header("RateLimit-Policy"), "\"per-minute\";q=2;w=60")
            XCTAssertEqual(stream.header("RateLimit"), "\"per-minute\";r=\(left);t=0")
        }
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        let refused = try get(&client, "/live", headers: ["X-Api-Key: s", "Accept: text/event-stream"])
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.header("RateLimit-Policy"), "\"per-minute\";q=2;w=60")
    }

    func testOneLimitForTheProcessAcrossFourWorkers() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstream.port), arguments: ["--workers", "4"])
        defer { server.stop() }
        // 80 requests from 8 threads, each on its own connection (the kernel spreads them over
        // the four loops), all with one key of `per-minute` (2/m, a burst of 2): the process
        // admits 2, plus one per 30 s the run took, however slow it is; a limit per worker
        // would admit 2 on every loop the requests reached, up to 8.
        let admitted = AdmittedCount()
        let port = server.port
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<10 {
                if let response = try? RawHTTP.get(
                    port: port, "/keyed/w\(thread)-\(index)", headers: ["X-Api-Key: one-client"]),
                    response.status == 200
                {
                    admitted.add()
                }
            }
        }
        let seconds = Date().timeIntervalSince(start)
        let count = admitted.value
        XCTAssertGreaterThanOrEqual(count, 2)
        XCTAssertLessThanOrEqual(count, 2 + Int(seconds / 30), "\(count) admitted in \(seconds) s")
        XCTAssertEqual(try upstreamRequests(upstream, "/echo/w"), count)
    }
}

/// Admitted requests counted by several threads.
final class AdmittedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
