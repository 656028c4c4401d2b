import Foundation
import ReshapeTestSupport
import XCTest

/// Past `--max-connections`, a refusal lingers briefly, apart from the cap, and only so many
/// at once: a flood of refused clients that never close neither keeps the next client out once
/// a place frees nor holds a socket each. Before, each refusal lingered 2 s counted against
/// the cap: 200 of them held 200 sockets, and a client refused as long as they lingered.
final class ConnectionCapFloodTests: XCTestCase {
    func testRefusedClientsThatNeverCloseNeitherKeepTheNextOutNorHoldASocketEach() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port),
            arguments: ["--workers", "1", "--max-connections", "1"],
            environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        let pid = server.child.process.processIdentifier
        func openFiles() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0 }
        var first = try RawHTTP(port: server.port)
        defer { first.close() }
        first.send("GET /_reshape/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        XCTAssertEqual(first.readResponse()?.status, 200, "the one place")
        let before = openFiles()
        var flood: [RawHTTP] = []
        defer { for client in flood { client.close() } }
        for index in 0..<200 {
            var client = try RawHTTP(port: server.port)
            XCTAssertEqual(client.readResponse()?.status, 503, "client \(index)")
            flood.append(client)
        }
        XCTAssertLessThan(openFiles() - before, 100, "at most 64 refusals linger at once")
        first.close()
        let freed = Date()
        var status = 0
        while status != 200, Date().timeIntervalSince(freed) < 5 {
            status = (try? RawHTTP.get(port: server.port, "/_reshape/live").status) ?? 0
        }
        XCTAssertEqual(status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(freed), 0.5, "the refused do not hold the freed place")
    }
}
