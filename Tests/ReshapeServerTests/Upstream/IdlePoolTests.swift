import Foundation
import ReshapeTestSupport
import XCTest

/// The idle pool end to end: after a burst wider than `max-idle`, at most `max-idle` connections
/// to the upstream stay open, and none once `idle-timeout` has passed. Counted with `ss`, from
/// the proxy's side of the connections.
final class IdlePoolTests: XCTestCase {
    func testABurstLeavesAtMostMaxIdleAndNoneAfterTheIdleTimeout() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let rules = """
            upstreams:
              demo:
                url: http://127.0.0.1:\(upstream.port)
                max-idle: 4
                idle-timeout: 3s
            routes:
              - { name: slow, request: "GET /slow/{n}", upstream: demo, path: "/delay/300/users.json", forward-query: [n], transform: [] }
            """
        let server = try ReshapeServer(rules: rules, arguments: ["--workers", "1"])
        defer { server.stop() }

        let statuses = Locked<[Int]>([])
        let port = server.port
        DispatchQueue.concurrentPerform(iterations: 16) { n in
            let status = (try? RawHTTP.get(port: port, "/slow/\(n)").status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        XCTAssertEqual(statuses.withLock { $0 }, [Int](repeating: 200, count: 16))
        XCTAssertEqual(try upstream.entries("/delay/300/").count, 16)

        // The sweep runs every second: after it the idle connections beyond max-idle are closed.
        try waitUntil(timeout: 3) { try establishedConnections(toPort: upstream.port) <= 4 }
        let kept = try establishedConnections(toPort: upstream.port)
        XCTAssertLessThanOrEqual(kept, 4)
        XCTAssertGreaterThan(kept, 0, "the most recently used are kept for the next requests")

        try waitUntil(timeout: 6) { try establishedConnections(toPort: upstream.port) == 0 }
        XCTAssertEqual(try establishedConnections(toPort: upstream.port), 0, "all closed after idle-timeout")
        // The next request finds curl's cache of closed connections and opens a new one.
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/slow/last").status, 200)
    }

    private func establishedConnections(toPort port: Int) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ss", "-tnH", "state", "established", "( dport = :\(port) )"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n").count
    }
}

/// A value shared by the threads of a test.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
