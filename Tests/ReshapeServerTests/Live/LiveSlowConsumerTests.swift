import Foundation
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
