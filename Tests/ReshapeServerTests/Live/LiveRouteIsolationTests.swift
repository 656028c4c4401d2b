import Foundation
import ReshapeJSON
import XCTest

/// What keeps subscribers' streams apart: requests that would be answered differently never
/// share an upstream stream, nor its answer.
extension LiveRouteTests {
    /// `tenant-users` fetches the same URL for every tenant but sets `tenant` from the path:
    /// a second tenant must get its own stream, and a plain GET its own tenant's answer.
    func testCapturesUsedOnlyByTemplatesKeepStreamsApart() throws {
        let a = try EventStreamClient(port: server.port, "/t/a/users")
        defer { a.close() }
        try a.readHead()
        XCTAssertTrue(try a.expect("snapshot").data.contains(#""tenant":"a""#))
        let b = try EventStreamClient(port: server.port, "/t/b/users")
        defer { b.close() }
        try b.readHead()
        let snapshot = try b.expect("snapshot")
        XCTAssertTrue(snapshot.data.contains(#""tenant":"b""#), snapshot.data)
        XCTAssertEqual(try streamCounts().opened, 2, "one upstream stream per tenant")

        let get = try RawHTTP.get(port: server.port, "/t/c/users")
        XCTAssertNil(get.header("Reshape-Cache"), "no stream of tenant c: fetched")
        XCTAssertTrue(get.text.contains(#""tenant":"c""#), get.text)
        let getB = try RawHTTP.get(port: server.port, "/t/b/users")
        XCTAssertEqual(getB.header("Reshape-Cache"), "live")
        XCTAssertEqual(getB.text, snapshot.data)
    }
}
