import Foundation
import ReshapeTestSupport
import XCTest

/// A keep-alive connection idle past `ClientConnection.releaseAfterIdleMilliseconds` lets go of
/// its parser and request driver: its next requests, pipelined too, are answered as before,
/// and its idle timeout still closes it.
final class IdleConnectionTests: XCTestCase {
    func testAConnectionThatLetGoOfItsParserAnswersAsBeforeAndStillTimesOut() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port),
            arguments: ["--workers", "1", "--idle-timeout", "3000"],
            environment: ["TEST_SECRET_TOKEN": "unused"])
        defer { server.stop() }
        var client = try RawHTTP(port: server.port, timeout: 5)
        defer { client.close() }
        client.send("GET /users HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(first.status, 200)

        Thread.sleep(forTimeInterval: 1.5)
        client.send("GET /users HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /us")
        let again = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(again.status, 200)
        XCTAssertEqual(again.text, first.text)
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).status, 404)
        client.send("ers HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).status, 200, "a head split across reads")

        let idleSince = Date()
        _ = client.readAll()  // returns once the server closes, or after the 5 s receive timeout
        let idled = Date().timeIntervalSince(idleSince)
        XCTAssertGreaterThan(idled, 2, "not closed before the 3 s idle timeout")
        XCTAssertLessThan(idled, 4.5, "closed by the idle timeout")
    }
}
