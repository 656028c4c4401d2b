import Foundation
import ReshapeTestSupport
import XCTest

/// The slow-consumer bound: it measures what a client had not taken yet, not the event that
/// is being sent.
extension LiveRouteTests {
    /// `scores` has `buffer: 4KiB`: one patch far larger than that (and than the snapshot)
    /// must reach a client that reads, and the stream go on after it.
    func testOnePatchLargerThanTheBufferReachesAFastClient() throws {
        let client = try EventStreamClient(port: server.port, "/scores")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        let big = String(repeating: "y", count: 4_000_000)
        _ = try write("PUT", "/scores/huge.json", "\"\(big)\"")
        let patch = try client.expect("patch", timeout: 10)
        XCTAssertTrue(patch.data.contains(big), "the whole patch arrived")
        _ = try write("PUT", "/scores/after.json", "1")
        let next = try client.expect("patch")
        XCTAssertTrue(next.data.contains("after"), next.data)
        XCTAssertEqual(try metric("reshape_live_slow_consumers_total"), 0)
    }
}

/// What a stream's connection holds on to once the stream ended.
extension LiveRouteTests {
    /// A stream that ends while its head waits behind an earlier pipelined answer, for a
    /// client that reads nothing: once the head and the last chunk are queued behind that
    /// answer, the socket is closed after the idle timeout, so SIGTERM does not wait out its
    /// drain timeout (10 s) for the connection.
    func testAStreamEndedBeforeItsHeadIsWrittenDoesNotHoldTheSocket() throws {
        server.stop()
        server = try ReshapeServer(
            rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1", "--idle-timeout", "500"])
        // Far more than loopback's socket buffers take from a client that does not read.
        _ = try write("PUT", "/blob.json", "\"" + String(repeating: "z", count: 12_000_000) + "\"")
        let client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send(
            "GET /blob-late HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /refused HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        // The stream is refused at once and its end waits for its head: 1 s for the blob, then
        // the idle timeout (0.5 s) for the unread bytes, and the socket is closed. Until then
        // the client's connection is open beside the one asking for the metrics.
        try waitUntil(timeout: 6) { try metric("reshape_open_connections") == 1 }
        let started = Date()
        server.child.signal(SIGTERM)
        XCTAssertEqual(server.child.waitForExit(8), 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the drain did not wait for the unread stream")
    }
}
