import Foundation
import ReshapeTestSupport
import XCTest

/// `auth.sub` limits end to end, with AuthRouteTests' keys and tokens (minted by PyJWT): a
/// user's limit is their own, checked after the token, so a request without a valid one is a
/// 401, never a 429; and `--trusted-proxies` picks the client's address out of
/// `X-Forwarded-For`.
final class PerUserRateLimitTests: XCTestCase {
    private static let limits = """
        limits:
          per-user: { rate: 2/m, key: auth.sub }
          per-address: { rate: 2/m, key: client-address }
        routes:
          - name: limited-me
            request: GET /limited-me
            auth: app-users
            upstream: firebase
            path: /users/{auth.sub}.json
            limit: [per-user]
            transform: []
          - name: by-address
            request: GET /by-address/{id}
            upstream: firebase
            path: /users/{id}.json
            limit: [per-address]
            transform: []
        """

    private func serve(_ upstream: DemoUpstream, arguments: [String] = []) throws -> ReshapeServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reshape-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try AuthRouteTests.rules(upstream.port).write(
            to: directory.appendingPathComponent("auth.yaml"), atomically: true, encoding: .utf8)
        try Self.limits.write(to: directory.appendingPathComponent("limits.yaml"), atomically: true, encoding: .utf8)
        return try ReshapeServer(rulesDirectory: directory, arguments: arguments)
    }

    func testEachUserHasTheirOwnLimitAndNoTokenIsNeverA429() throws {
        let minted = try AuthRouteTests.mint()
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try minted.jwks.write(to: keys, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keys) }
        let upstream = try DemoUpstream(arguments: ["--jwks", keys.path])
        defer { upstream.child.stop() }
        let server = try serve(upstream)
        defer { server.stop() }
        func get(_ token: String?) throws -> RawHTTP.Response {
            try RawHTTP.get(
                port: server.port, "/limited-me", headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
        }
        let ada = try XCTUnwrap(minted.tokens["ada"])
        XCTAssertEqual(try get(ada).status, 200)
        XCTAssertEqual(try get(ada).status, 200)
        let third = try get(ada)
        XCTAssertEqual(third.status, 429, third.text)
        XCTAssertTrue(third.text.contains(#""policy":"per-user""#), third.text)
        XCTAssertEqual(third.header("RateLimit-Policy"), "\"per-user\";q=2;w=60")
        // Grace is another user: her own two.
        XCTAssertEqual(try get(minted.tokens["grace"]).status, 200)
        // No token, or a bad one, however often: 401, never counted as anyone's request.
        for _ in 0..<5 {
            XCTAssertEqual(try get(nil).status, 401)
            XCTAssertEqual(try get(minted.tokens["bad_signature"]).status, 401)
        }
        XCTAssertEqual(try get(minted.tokens["grace"]).status, 200)
        XCTAssertEqual(try upstream.entries("/users/\(minted.ada).json").count, 2)
    }

    func testTrustedProxiesGiveTheClientAddress() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let trusting = try serve(upstream, arguments: ["--trusted-proxies", "127.0.0.0/8, ::1"])
        defer { trusting.stop() }
        func get(_ server: ReshapeServer, _ forwarded: String) throws -> Int {
            try RawHTTP.get(port: server.port, "/by-address/x", headers: ["X-Forwarded-For: \(forwarded)"]).status
        }
        // The client is the rightmost address that is not a trusted proxy; the forged left part is not.
        XCTAssertEqual(try get(trusting, "6.6.6.6, 203.0.113.7"), 200)
        XCTAssertEqual(try get(trusting, "7.7.7.7, 203.0.113.7, 127.0.0.9"), 200)
        XCTAssertEqual(try get(trusting, "203.0.113.7"), 429)
        XCTAssertEqual(try get(trusting, "203.0.113.8"), 200, "another client")
        // Without --trusted-proxies the header is not believed: every request is the peer's.
        let plain = try serve(upstream)
        defer { plain.stop() }
        XCTAssertEqual(try get(plain, "198.51.100.1"), 200)
        XCTAssertEqual(try get(plain, "198.51.100.2"), 200)
        XCTAssertEqual(try get(plain, "198.51.100.3"), 429)
    }
}
