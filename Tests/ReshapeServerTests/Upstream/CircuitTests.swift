import Foundation
import ReshapeTestSupport
import XCTest

/// The circuit end to end: a hung upstream's timeouts open it, later fetches are answered 503
/// at once without contacting the upstream, and after `open-for` one probe closes it again.
final class CircuitTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    private var server: ReshapeServer!

    override class func setUp() {
        super.setUp()
        upstream = try? DemoUpstream()
    }

    override class func tearDown() {
        upstream?.child.stop()
        super.tearDown()
    }

    override func setUpWithError() throws {
        let upstream = try XCTUnwrap(Self.upstream, "the demo upstream did not start")
        let rules = """
            upstreams:
              flaky:
                url: http://127.0.0.1:\(upstream.port)
                timeout: 300ms
                circuit: { failures: 3, open-for: 2s }
              slow:
                url: http://127.0.0.1:\(upstream.port)
                circuit: { failures: 2, open-for: 10s }
            routes:
              - { name: hang, request: "GET /hang/{n}", upstream: flaky, path: "/fault/hang/{n}", transform: [] }
              - { name: users, request: "GET /users/{n}", upstream: flaky, path: "/users.json", forward-query: [n], transform: [] }
              - { name: cut, request: "GET /cut/{n}", upstream: slow, path: "/fault/hang/cut-{n}", timeout: 200ms, transform: [] }
              - { name: slow-users, request: "GET /slow-users", upstream: slow, path: "/users.json", transform: [] }
            """
        server = try ReshapeServer(rules: rules, arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
    }

    private func metric(_ prefix: String) throws -> Int? {
        let text = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix + " ") }) else { return nil }
        return Int(line.split(separator: " ").last ?? "")
    }

    func testAHungUpstreamOpensTheCircuitAndAProbeClosesItAfterRecovery() throws {
        for n in 0..<3 {
            XCTAssertEqual(try RawHTTP.get(port: server.port, "/hang/\(n)").status, 504)
        }
        XCTAssertEqual(try metric("reshape_upstream_circuit_state{upstream=\"flaky\"}"), 1)

        let before = try Self.upstream.entries("/users.json").count
        let started = Date()
        let refused = try RawHTTP.get(port: server.port, "/users/1")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.25, "refused at once")
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.json["code"] as? String, "upstream-unavailable")
        XCTAssertEqual(refused.header("Content-Type"), "application/problem+json")
        let retryAfter = try XCTUnwrap(Int(refused.header("Retry-After") ?? ""), "Retry-After in seconds")
        XCTAssertTrue((1...2).contains(retryAfter), "\(retryAfter)")
        XCTAssertEqual(try Self.upstream.entries("/users.json").count, before, "the upstream was not contacted")
        XCTAssertEqual(try metric("reshape_upstream_circuit_rejections_total{upstream=\"flaky\"}"), 1)

        // The upstream's other paths work again; after open-for, one probe goes and closes it.
        // Until then every look is refused at once, without the upstream.
        var probe = refused
        try waitUntil(timeout: Double(retryAfter) + 2) {
            probe = try RawHTTP.get(port: server.port, "/users/2")
            return probe.status != 503
        }
        XCTAssertEqual(probe.status, 200, probe.text)
        XCTAssertEqual(try metric("reshape_upstream_circuit_state{upstream=\"flaky\"}"), 0)
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/users/3").status, 200)
        XCTAssertEqual(try Self.upstream.entries("/users.json").count, before + 2)
    }

    func testRouteTimeoutsCountAsTimeouts() throws {
        for n in 0..<2 {
            XCTAssertEqual(try RawHTTP.get(port: server.port, "/cut/\(n)").status, 504)
        }
        let refused = try RawHTTP.get(port: server.port, "/slow-users")
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.json["upstream"] as? String, "slow")
    }
}
