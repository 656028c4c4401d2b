import Foundation
import ReshapeTestSupport
import XCTest

/// `--max-inflight-bytes` end to end (issue 29): a fetch that its route's recent sizes say
/// will not fit waits for room, in order, and is served when room comes, or is shed with
/// `503 load-shed` just before its route's timeout. A request holds its room (its body, its
/// tape and its answer: about four times the body for these documents) until its answer has
/// been written to the client.
final class MemoryBudgetTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: ReshapeServer!

    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)" }
        routes:
          - { name: hold, request: "GET /hold/{ms}/{tag}", upstream: demo, path: "/delay/{ms}/fault/big", forward-query: [bytes, tag], transform: [] }
          - { name: big, request: "GET /big/{tag}", upstream: demo, path: "/fault/big", forward-query: [bytes, tag], transform: [] }
          - { name: grow, request: "GET /grow/{tag}", upstream: demo, path: "/fault/big", forward-query: [bytes, tag], transform: [] }
          - { name: hasty, request: "GET /hasty/{tag}", upstream: demo, path: "/fault/big", forward-query: [bytes, tag], timeout: 500ms, transform: [] }
          - { name: unread, request: "GET /unread/{tag}", upstream: demo, path: "/fault/big", forward-query: [bytes, tag], transform: [] }
        """
    }

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            server = try ReshapeServer(
                rules: rules(upstreamPort: upstream.port),
                arguments: ["--workers", "2", "--max-inflight-bytes", "1MiB"])
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

    private func send(_ target: String) throws -> RawHTTP {
        let client = try RawHTTP(port: port)
        client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return client
    }

    private func answer(_ client: RawHTTP) throws -> RawHTTP.Response {
        var client = client
        defer { client.close() }
        return try XCTUnwrap(client.readResponse(), "no answer")
    }

    private func gauge(_ name: String) throws -> Int? {
        let text = try RawHTTP.get(port: port, "/_reshape/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
        return Int(line.split(separator: " ").last ?? "")
    }

    /// Teaches the route at `path` that its bodies are about 200 KB: one such request needs
    /// most of the budget, two do not fit.
    private func warm(_ path: String) throws {
        XCTAssertEqual(try RawHTTP.get(port: port, path + "?bytes=200000").status, 200)
        // Given back once the answer is written, on the worker's thread: just after it is read.
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_bytes") == 0 }, "given back")
    }

    func testAFetchThatDoesNotFitWaitsAndIsServedWhenRoomComes() throws {
        try warm("/big/warm")
        try warm("/hold/0/warm")
        let holder = try send("/hold/700/h1?bytes=200000&tag=h1")
        try Self.upstream.waitForRequest("/delay/700/fault/big")
        let waiter = try send("/big/w1?bytes=200000&tag=w1")
        XCTAssertTrue(try waitUntil(timeout: 3) { try gauge("reshape_inflight_waiting") == 1 }, "it waits")
        XCTAssertTrue(try Self.upstream.entries("/fault/big?bytes=200000&tag=w1").isEmpty, "not fetched yet")
        XCTAssertEqual(try answer(holder).status, 200)
        let served = try answer(waiter)
        XCTAssertEqual(served.status, 200, served.text)
        XCTAssertEqual(try gauge("reshape_inflight_waiting"), 0)
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_bytes") == 0 })
    }

    func testAFetchWaitingUntilItsRouteTimeoutIsShed() throws {
        try warm("/hasty/warm")
        try warm("/hold/0/warm")
        let holder = try send("/hold/1500/h2?bytes=200000&tag=h2")
        try Self.upstream.waitForRequest("/delay/1500/fault/big?bytes=200000&tag=h2")
        let started = Date()
        let shed = try RawHTTP.get(port: port, "/hasty/w2?bytes=200000&tag=w2")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(shed.status, 503, shed.text)
        XCTAssertEqual(shed.json["code"] as? String, "load-shed")
        XCTAssertEqual(shed.header("Retry-After"), "1")
        XCTAssertGreaterThan(seconds, 0.4, "it waited for room")
        XCTAssertLessThan(seconds, 1.2)
        XCTAssertTrue(try Self.upstream.entries("/fault/big?bytes=200000&tag=w2").isEmpty, "never fetched")
        XCTAssertEqual(try answer(holder).status, 200)
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_bytes") == 0 })
    }

    func testATransferWhoseBodyWouldPassTheBudgetIsPausedUntilRoomComes() throws {
        // `grow` is known for small bodies, so its fetch starts; its Content-Length then asks
        // for room the holder has.
        XCTAssertEqual(try RawHTTP.get(port: port, "/grow/warm?bytes=1000").status, 200)
        try warm("/hold/0/warm")
        let holder = try send("/hold/1000/h3?bytes=200000&tag=h3")
        try Self.upstream.waitForRequest("/delay/1000/fault/big?bytes=200000&tag=h3")
        let started = Date()
        let grower = try send("/grow/g3?bytes=200000&tag=g3")
        try Self.upstream.waitForEntries("/fault/big?bytes=200000&tag=g3", count: 1)
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_waiting") == 1 }, "paused, waiting")
        let grown = try answer(grower)
        let grownAfter = Date().timeIntervalSince(started)
        XCTAssertEqual(grown.status, 200, grown.text)
        XCTAssertGreaterThan(grown.body.count, 190_000, "the whole body, after the pause")
        // Read again now: the entry logged when the request came may predate the upstream's answer.
        let entry = try XCTUnwrap(Self.upstream.waitForAllEnded("/fault/big?bytes=200000&tag=g3").first)
        XCTAssertNotNil(entry.answeredMs, "the upstream answered")
        XCTAssertGreaterThan(grownAfter, 0.6, "answered only once the holder (1 s) gave its room back")
        XCTAssertEqual(try answer(holder).status, 200)
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_bytes") == 0 })
    }

    func testAnAnswerHoldsItsRoomUntilWrittenAndAClientLeavingGivesItBack() throws {
        try warm("/big/warm")
        // A client that reads nothing: most of its 8 MB answer waits in the server's memory.
        let reader = try RawHTTP(port: port)
        var small: Int32 = 4096
        setsockopt(reader.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        reader.send("GET /unread/u1?bytes=8000000&tag=u1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let ended = try Self.upstream.waitForAllEnded("/fault/big?bytes=8000000&tag=u1", timeout: 10)
        XCTAssertEqual(ended.count, 1)
        // The answer is made (the body and its tape are gone) and is being written: still held.
        Thread.sleep(forTimeInterval: 1)
        XCTAssertGreaterThan(try gauge("reshape_inflight_bytes") ?? 0, 8_000_000, "held while unread")
        let waiter = try send("/big/w4?bytes=200000&tag=w4")
        XCTAssertTrue(try waitUntil(timeout: 3) { try gauge("reshape_inflight_waiting") == 1 }, "no room meanwhile")
        XCTAssertTrue(try Self.upstream.entries("/fault/big?bytes=200000&tag=w4").isEmpty, "not fetched yet")
        // The client leaves without reading: its room goes to the waiter.
        reader.close()
        let served = try answer(waiter)
        XCTAssertEqual(served.status, 200, served.text)
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_bytes") == 0 }, "all given back")
    }

    /// A request keeps what its finished fetches brought until its answer is written, so its
    /// later fetches (an `expand`'s follow-ups) reserve beside its own bytes. On a budget smaller
    /// than the posts (64 KiB before their route is known) plus one follow-up, nothing else
    /// would give room back: the follow-ups go, one past the budget at a time, and two workers'
    /// requests doing so at once do not hold each other up. Before, each waited for room only
    /// its own answer would give back, and was shed at its route's timeout.
    func testLaterFetchesOfARequestGoWhenOnlyWaitingRequestsHoldTheBudget() throws {
        let server = try ReshapeServer(
            rules: """
                upstreams:
                  demo: { url: "http://127.0.0.1:\(Self.upstream.port)" }
                routes:
                  - name: posts
                    request: "GET /posts/{tag}"
                    upstream: demo
                    path: /posts.json
                    timeout: 3s
                    transform:
                      - keyed-to-array: { key: postId }
                      - expand: { key: authorId, fetch: { upstream: demo, path: "/users/{value}.json" }, as: author, concurrency: 2 }
                """, arguments: ["--max-inflight-bytes", "64KiB"])
        defer { server.stop() }
        func authors(_ tag: String) throws -> [String?] {
            let started = Date()
            let answer = try RawHTTP.get(port: server.port, "/posts/\(tag)")
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "answered without waiting out its timeout")
            let posts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]])
            return posts.map { ($0["author"] as? [String: Any])?["name"] as? String }
        }
        // Alone on an idle server, twice: the second knows the route's sizes.
        for tag in ["alone1", "alone2"] {
            XCTAssertEqual(try authors(tag).compactMap { $0 }.count, 4, "four posts with an author, one without")
        }
        // Four at once, over two workers: each holds its posts while its follow-ups wait.
        let group = DispatchGroup()
        let lock = NSLock()
        let port = server.port
        nonisolated(unsafe) var statuses: [Int] = []
        for index in 0..<4 {
            DispatchQueue.global().async(group: group) {
                let status = (try? RawHTTP.get(port: port, "/posts/together\(index)").status) ?? 0
                lock.withLock { statuses.append(status) }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(lock.withLock { statuses }, [200, 200, 200, 200])
        let metrics = { try RawHTTP.get(port: server.port, "/_reshape/metrics").text }
        XCTAssertTrue(try waitUntil(timeout: 2) { try metrics().contains("\nreshape_inflight_bytes 0\n") })
    }

    /// A client that pipelines requests for 8 MB answers and reads nothing: its first answer
    /// waits in the server's memory, counted in the budget, and its next ones wait for room.
    /// Once what was written has made no progress for the idle timeout (1 s here), the
    /// connection is ended, its answers dropped and its fetches cancelled: the bytes come back
    /// and another client's fetch, which waited for them, is served. Before, it was closed
    /// only after its writes, which never ended: the budget stayed full for good.
    func testAClientThatNeverReadsIsCutOffAndItsAnswersBytesComeBack() throws {
        let server = try ReshapeServer(
            rules: Self.rules(upstreamPort: Self.upstream.port),
            arguments: ["--max-inflight-bytes", "1MiB", "--idle-timeout", "1000"])
        defer { server.stop() }
        func gauge(_ name: String) throws -> Int? {
            let text = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return nil }
            return Int(line.split(separator: " ").last ?? "")
        }
        let reader = try RawHTTP(port: server.port)
        defer { reader.close() }
        var small: Int32 = 4096
        setsockopt(reader.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        reader.send(
            (1...3).map { "GET /unread/s\($0)?bytes=8000000&tag=s\($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined())
        XCTAssertEqual(try Self.upstream.waitForAllEnded("/fault/big?bytes=8000000&tag=s1", timeout: 10).count, 1)
        XCTAssertTrue(
            try waitUntil(timeout: 3) { try gauge("reshape_inflight_bytes") ?? 0 > 8_000_000 }, "held while unread")
        let started = Date()
        var waiter = try RawHTTP(port: server.port)
        defer { waiter.close() }
        waiter.send("GET /big/w5?bytes=200000&tag=w5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let served = try XCTUnwrap(waiter.readResponse(), "no answer")
        XCTAssertEqual(served.status, 200, served.text)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "served once the reader was cut off, not shed")
        XCTAssertTrue(try waitUntil(timeout: 2) { try gauge("reshape_inflight_bytes") == 0 }, "all given back")
        // The metrics' earlier connections close once their client's end is read (a closing
        // answer lingers until then): counted until that turn of the loop.
        XCTAssertTrue(
            try waitUntil(timeout: 3) { try gauge("reshape_open_connections") == 2 }, "the waiter's and the metrics'")
        XCTAssertTrue(server.child.stderr.contains("connection cut off"), "said in the log: \(server.child.stderr)")
    }

    /// A client that reads slowly, but reads, is not cut off however long its answer takes:
    /// each time some of it goes out, the idle timeout counts again.
    func testAClientThatReadsSlowlyGetsItsWholeAnswer() throws {
        let server = try ReshapeServer(
            rules: Self.rules(upstreamPort: Self.upstream.port), arguments: ["--idle-timeout", "500"])
        defer { server.stop() }
        let reader = try RawHTTP(port: server.port)
        defer { reader.close() }
        var small: Int32 = 16384
        setsockopt(reader.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        reader.send("GET /unread/slow?bytes=4000000&tag=slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        var buffer = [UInt8](repeating: 0, count: 16384)
        var read: [UInt8] = []
        // 2.5 s, five idle timeouts, at about 80 KB a second.
        for _ in 0..<25 {
            Thread.sleep(forTimeInterval: 0.1)
            let count = recv(reader.fd, &buffer, buffer.count, 0)
            XCTAssertGreaterThan(count, 0, "the connection is still open")
            if count > 0 { read += buffer[0..<count] }
        }
        var rest = RawHTTP.parse(&read)
        if rest == nil {
            // The rest at full speed.
            while rest == nil {
                let count = recv(reader.fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                read += buffer[0..<count]
                rest = RawHTTP.parse(&read)
            }
        }
        let answer = try XCTUnwrap(rest, "the whole answer")
        XCTAssertEqual(answer.status, 200)
        XCTAssertGreaterThan(answer.body.count, 3_900_000)
    }

    func testABadBudgetIsRefusedAtStart() throws {
        for (arguments, environment) in [
            (["--max-inflight-bytes", "lots"], [:]), ([], ["RESHAPE_MAX_INFLIGHT_BYTES": "-1"]),
        ] {
            let child = try ChildProcess(
                "reshape", ["serve", "--rules", "/nonexistent", "--listen", "127.0.0.1:0"] + arguments,
                environment: environment)
            XCTAssertEqual(child.waitForExit(), 2, "\(arguments) \(environment): \(child.stderr)")
            try child.waitFor(2, "the reason") {
                $0.stderr.contains("--max-inflight-bytes takes a size like 256MiB or 1GiB, or 0 for no budget")
            }
        }
    }
}
