import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// Every close that follows an answer while the client may still be sending lingers (shuts
/// down, reads and discards, then closes), not only a refusal's: a request that said
/// `Connection: close` with more pipelined behind it, an answer during a drain, the connection
/// cap's refusal. Closed with input unread, the kernel sends a reset, which discards what the
/// client has not read yet: a large answer is cut, and the client's read fails with
/// `ECONNRESET` instead of meeting the end of the stream.
final class CloseAfterAnswerTests: XCTestCase {
    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", max-body: 64MiB }
        routes:
          - { name: big, request: GET /big, upstream: demo, path: /fault/big, forward-query: [bytes], transform: [] }
          - { name: slow, request: "GET /slow/{ms}", upstream: demo, path: "/delay/{ms}/fault/big", forward-query: [bytes], transform: [] }
          - { name: echo, request: POST /echo, upstream: demo, path: /echo, body: {}, transform: [ { keep: [method] } ] }
        """
    }

    /// What a client read: the answers, and how the stream ended (0: the server's end; else
    /// the error, `ECONNRESET` for a reset).
    struct Read {
        var answers: [RawHTTP.Response]
        var error: Int32
    }

    /// Sends `bytes` in one `send` from another thread, without waiting for an answer, while
    /// this one reads, through a small receive buffer (the answer waits in the server's
    /// socket), until the stream ends. The first `atOnce` bytes are sent before that thread
    /// starts; `then` runs once the sender is under way.
    static func sendAndRead(port: Int, _ bytes: [UInt8], atOnce: Int = 0, then: () throws -> Void = {}) throws -> Read {
        let client = try RawHTTP(port: port, timeout: 10)
        defer { client.close() }
        var small: Int32 = 32768
        setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let fd = client.fd
        client.send(Array(bytes.prefix(atOnce)))
        let sent = DispatchSemaphore(value: 0)
        Thread {
            var offset = atOnce
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if count <= 0 { break }
                offset += count
            }
            sent.signal()
        }.start()
        try then()
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var error: Int32 = 0
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                data += buffer[0..<count]
            } else {
                error = count == 0 ? 0 : errno
                break
            }
        }
        _ = sent.wait(timeout: .now() + 10)
        var answers: [RawHTTP.Response] = []
        while let answer = RawHTTP.parse(&data) { answers.append(answer) }
        return Read(answers: answers, error: error)
    }

    /// A POST with a body of `bytes` bytes, pipelined behind what a test asks for.
    static func post(bodyBytes: Int) -> [UInt8] {
        Array(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(bodyBytes)\r\n\r\n"
                .utf8) + [UInt8](repeating: UInt8(ascii: " "), count: bodyBytes)
    }

    func testAnAnswerToConnectionCloseReachesAClientThatPipelinedMore() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1"])
        defer { server.stop() }
        for attempt in 1...3 {
            let read = try Self.sendAndRead(
                port: server.port,
                Array("GET /big?bytes=2000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
                    + Self.post(bodyBytes: 400_000))
            XCTAssertEqual(read.answers.map(\.status), [200], "attempt \(attempt)")
            XCTAssertGreaterThan(read.answers.first?.body.count ?? 0, 1_900_000, "attempt \(attempt): the whole answer")
            XCTAssertEqual(read.error, 0, "attempt \(attempt): the server's end, not a reset (\(read.error))")
        }
    }

    /// A drain (SIGTERM) answers the request in flight with `Connection: close`. The client
    /// pipelined past what the server reads at once (16 requests), and a body behind them.
    func testAnAnswerDuringADrainReachesAClientThatPipelinedMore() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1"])
        defer { server.stop() }
        let requests =
            "GET /slow/500?bytes=2000000 HTTP/1.1\r\nHost: x\r\n\r\n"
            + String(repeating: "GET /slow/5000?bytes=10 HTTP/1.1\r\nHost: x\r\n\r\n", count: 20)
        let read = try Self.sendAndRead(port: server.port, Array(requests.utf8) + Self.post(bodyBytes: 400_000)) {
            try upstream.waitForRequest("/delay/500/fault/big?bytes=2000000")
            server.child.signal(SIGTERM)
        }
        XCTAssertEqual(read.answers.map(\.status), [200])
        XCTAssertEqual(read.answers.first?.header("Connection"), "close")
        XCTAssertGreaterThan(read.answers.first?.body.count ?? 0, 1_900_000, "the whole answer")
        XCTAssertEqual(read.error, 0, "the server's end, not a reset (\(read.error))")
        XCTAssertEqual(server.child.waitForExit(10), 0, server.child.stderr)
    }

    /// Past the connection cap, the 503 is written before anything is read: the request the
    /// client sent at once, its head before the server accepts, is all unread.
    func testTheConnectionCapsRefusalEndsWithoutAReset() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1", "--max-connections", "1"])
        defer { server.stop() }
        let first = try RawHTTP(port: server.port)
        defer { first.close() }
        for attempt in 1...3 {
            let read = try Self.sendAndRead(port: server.port, Self.post(bodyBytes: 400_000), atOnce: 2000)
            XCTAssertEqual(read.answers.map(\.status), [503], "attempt \(attempt)")
            XCTAssertEqual(read.answers.first?.json["code"] as? String, "overloaded")
            XCTAssertEqual(read.error, 0, "attempt \(attempt): the server's end, not a reset (\(read.error))")
        }
    }
}
