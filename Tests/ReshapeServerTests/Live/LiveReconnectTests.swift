import Foundation
import XCTest

/// How a live stream reconnects to an upstream that keeps dropping it.
extension LiveRouteTests {
    /// Every upstream stream is dropped right after its first `put`, for 3 s: the reconnections
    /// back off (250 ms, 500 ms, 1 s, 2 s, with jitter), rather than restarting at 250 ms
    /// after each snapshot, which would open more than ten streams in that time.
    func testAStreamDroppedAfterEachSnapshotBacksOff() throws {
        let client = try EventStreamClient(port: server.port, "/users")
        defer { client.close() }
        try client.readHead()
        _ = try client.expect("snapshot")
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            _ = try write("POST", "/_demo/streams/drop", nil)
            // A drop every 30 ms for 3 s: what is measured is how often it reconnects meanwhile.
            Thread.sleep(forTimeInterval: 0.03)
        }
        let opened = try streamCounts().opened
        XCTAssertGreaterThanOrEqual(opened, 3, "it does reconnect")
        XCTAssertLessThanOrEqual(opened, 7, "reconnections back off")
    }
}
