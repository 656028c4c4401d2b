import ReshapeJSON
import ReshapeLive
import ReshapeTestSupport
import XCTest

/// Subscribers joining a stream that is open: the snapshot of an answer is rendered once and
/// shared by everyone who joins while that answer holds, and never outlives it.
extension LiveRouteTests {
    func testSubscribersJoiningAtOneAnswerGetTheSameSnapshotFromOneStream() throws {
        let first = try EventStreamClient(port: server.port, "/users")
        defer { first.close() }
        try first.readHead()
        let snapshot = try first.expect("snapshot")
        XCTAssertEqual(snapshot.data, try plainGet("/users-fetched"))

        let joined = try (0..<24).map { _ in try EventStreamClient(port: server.port, "/users") }
        defer { for client in joined { client.close() } }
        for client in joined {
            try client.readHead()
            let event = try client.expect("snapshot")
            XCTAssertEqual(event.id, "1", "each subscriber numbers its own events")
            XCTAssertEqual(event.data, snapshot.data)
        }
        XCTAssertEqual(try streamCounts().opened, 1, "one upstream stream for every subscriber")
        XCTAssertEqual(try metric("reshape_live_subscribers"), 25)

        // The answer changes: each subscriber gets the patch, and who joins now gets the new
        // answer, not the snapshot shared before.
        _ = try write("POST", "/users.json", #"{"name":"Zed","age":30}"#)
        let change = try patch(from: first.expect("patch").data)
        for client in joined { XCTAssertEqual(try client.expect("patch").id, "2") }
        let changed = try change.applied(to: JSON.parse(Array(snapshot.data.utf8)))
        let late = try EventStreamClient(port: server.port, "/users")
        defer { late.close() }
        try late.readHead()
        let again = try late.expect("snapshot")
        XCTAssertEqual(again.data, String(decoding: changed.serialized(), as: UTF8.self))
        XCTAssertEqual(again.data, try plainGet("/users-fetched"))
        XCTAssertNotEqual(again.data, snapshot.data)
        XCTAssertEqual(try streamCounts().opened, 1)
    }
}
