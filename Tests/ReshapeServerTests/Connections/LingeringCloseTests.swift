import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// A refusal that stops reading (413 past `--max-body-bytes`, 503 shed at the head) closes the
/// connection with the client's body unread. Closed at once, the kernel answers the bytes still
/// coming with a reset, which can discard the refusal before the client reads it (RFC 9112
/// §9.6): the server half-closes after its answer and reads on, discarding, until the client
/// closes (or for a bounded time and size), so the client that sends its body without waiting
/// gets the answer.
final class LingeringCloseTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: ReshapeServer!

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            server = try ReshapeServer(
                rules: """
                    upstreams:
                      demo: { url: "http://127.0.0.1:\(upstream.port)", max-body: 64MiB }
                    routes:
                      - { name: big, request: GET /big, upstream: demo, path: /fault/big, forward-query: [bytes], transform: [] }
                      - { name: echo, request: POST /echo, upstream: demo, path: /echo, body: {}, transform: [ { keep: [method] } ] }
                    """, arguments: ["--workers", "1", "--max-body-bytes", "1000"])
        } catch {
            XCTFail("could not start the servers: \(error)")
        }
    }

    override class func tearDown() {
        server?.stop()
        upstream?.child.stop()
        super.tearDown()
    }

    /// Sends `head` and then `bodyBytes` bytes at once, from another thread, without waiting for
    /// an answer (as a client that does not wait for `100 Continue` does), while this one reads
    /// every answer until the server closes. Returns the answers read, and whether the sender
    /// met a reset.
    private func sendWithoutWaiting(_ head: String, bodyBytes: Int) throws -> [RawHTTP.Response] {
        let client = try RawHTTP(port: Self.server.port, timeout: 10)
        defer { client.close() }
        var small: Int32 = 32768
        setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let fd = client.fd
        let sent = DispatchSemaphore(value: 0)
        Thread {
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 65536)
            var left = bodyBytes
            _ = Array(head.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            while left > 0 {
                let count = chunk.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, min(left, $0.count), Int32(MSG_NOSIGNAL))
                }
                if count <= 0 { break }
                left -= count
            }
            sent.signal()
        }.start()
        var bytes = client.readAll()
        _ = sent.wait(timeout: .now() + 10)
        var answers: [RawHTTP.Response] = []
        while let answer = RawHTTP.parse(&bytes) { answers.append(answer) }
        return answers
    }

    /// Over loopback, Linux delivers a lone refusal before the reset even without lingering:
    /// this one guards the lingering close itself (the answer, then the server's end).
    func testA413AtTheHeadReachesAClientThatSendsItsBodyAnyway() throws {
        for attempt in 1...5 {
            let answers = try sendWithoutWaiting(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n",
                bodyBytes: 4_000_000)
            XCTAssertEqual(answers.map(\.status), [413], "attempt \(attempt)")
            XCTAssertEqual(answers.first?.json["code"] as? String, "body-too-large")
        }
    }

    /// Behind a large answer the client has not read yet, the refusal waits in the server's
    /// socket: closed at once, the reset dropped it with the rest of the large answer, and the
    /// client read neither whole.
    func testA413BehindALargeAnswerReachesAClientThatSendsItsBodyAnyway() throws {
        for attempt in 1...3 {
            let answers = try sendWithoutWaiting(
                "GET /big?bytes=2000000 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3D0900\r\n",
                bodyBytes: 4_000_000)
            XCTAssertEqual(answers.map(\.status), [200, 413], "attempt \(attempt)")
            XCTAssertGreaterThan(answers.first?.body.count ?? 0, 1_900_000)
        }
    }

    /// A client that neither sends nor closes after its refusal is let go after
    /// `lingerMilliseconds` (2 s).
    func testALingeringCloseEndsOnItsOwn() throws {
        func openConnections() throws -> Int? {
            let text = try RawHTTP.get(port: Self.server.port, "/_reshape/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix("reshape_open_connections ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        var client = try RawHTTP(port: Self.server.port)
        defer { client.close() }
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n")
        client.send(String(repeating: "x", count: 3000))
        XCTAssertEqual(client.readResponse()?.status, 413)
        let started = Date()
        XCTAssertEqual(try openConnections(), 2, "this one lingers, beside the metrics'")
        XCTAssertTrue(try waitUntil(timeout: 4) { try openConnections() == 1 }, "closed by the server")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertGreaterThan(seconds, 1.5)
        XCTAssertLessThan(seconds, 3)
    }
}
