import Foundation
import ReshapeJSON
import ReshapeTestSupport
import XCTest

/// Verified users end to end: `reshape serve` in front of the demo upstream, which also serves
/// the key set (`--jwks`, a file the test writes and rewrites to rotate keys), with tokens minted
/// by PyJWT (`mint_route_tokens.py`).
final class AuthRouteTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var server: ReshapeServer!
    private var keysFile: URL!
    // Tests of one class run one at a time: the keys and tokens are made once.
    nonisolated(unsafe) private static var minted: Result<Minted, Error>?

    struct Minted {
        let directory: URL
        let ada: String
        let grace: String
        let jwks: String
        let rotated: String
        let tokens: [String: String]
    }

    override func setUpWithError() throws {
        let minted = try Self.mint()
        keysFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try minted.jwks.write(to: keysFile, atomically: true, encoding: .utf8)
        upstream = try DemoUpstream(arguments: ["--jwks", keysFile.path])
        server = try ReshapeServer(rules: Self.rules(upstream.port), arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
        if let keysFile { try? FileManager.default.removeItem(at: keysFile) }
    }

    static func rules(_ port: Int, jwksPort: Int? = nil) -> String {
        """
        upstreams:
          firebase: { url: "http://127.0.0.1:\(port)", timeout: 3s }
        auth:
          app-users:
            jwks: http://127.0.0.1:\(jwksPort ?? port)/_demo/jwks.json
            issuer: https://securetoken.google.com/my-app
            audience: my-app
            algorithms: [RS256]
            leeway: 0s
        routes:
          - name: me
            request: GET /me
            auth: app-users
            upstream: firebase
            path: /users/{auth.sub}.json
            cache: { ttl: 30s, upstream-cache-control: ignore }
            transform: [ { set: { objectId: "{auth.sub}" } } ]
          - name: verified-me
            request: GET /verified-me
            auth: { verifier: app-users, require: { email_verified: true } }
            upstream: firebase
            path: /users/{auth.sub}.json
            transform: []
          - name: my-users
            request: GET /my-users
            auth: app-users
            upstream: firebase
            path: /users.json
            headers: { X-User: "user {auth.sub}", X-Tier: "{auth.tier}" }
            query: { orderBy: '"$key"', equalTo: '"{auth.sub}"' }
            transform: []
          - name: live-me
            request: GET /live-me
            auth: app-users
            upstream: firebase
            path: /users/{auth.sub}.json
            live: true
            transform: []
          - name: open
            request: GET /open/{id}
            upstream: firebase
            path: /users/{id}.json
            transform: [ { set: { objectId: "{id}" } } ]
        """
    }

    func testMeAnswersTheVerifiedUsersOwnRecordPrivately() throws {
        let minted = try Self.mint()
        let response = try get("/me", token: minted.tokens["ada"])
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.text, try RawHTTP.get(port: server.port, "/open/\(minted.ada)").text)
        XCTAssertEqual(response.header("Cache-Control"), "private, max-age=30")
        XCTAssertEqual(response.header("Vary"), "Authorization")
        XCTAssertEqual(try upstream.entries("/users/\(minted.ada).json").count, 2, "/me, then /open")
        let fetched = try XCTUnwrap(try upstream.entries("/users/").first)
        XCTAssertNil(fetched.header("Authorization"), "the client's token is not passed on")
        XCTAssertEqual(try authCount("ok"), 1)
    }

    func testTheKeySetIsFetchedAtStartBeforeAnyRequest() throws {
        try upstream.waitForEntries("/_demo/jwks.json", count: 1)
        XCTAssertEqual(try upstream.entries("/users").count, 0)
        XCTAssertEqual(try get("/me", token: try Self.mint().tokens["ada"]).status, 200)
        XCTAssertEqual(try upstream.entries("/_demo/jwks.json").count, 1, "the request used the keys fetched at start")
    }

    func testEveryBadTokenIs401WithoutAnUpstreamRequest() throws {
        let minted = try Self.mint()
        let bad = [
            "expired", "wrong_aud", "wrong_iss", "alg_none", "hs256_public_key_secret", "unknown_kid", "bad_signature",
            "not_a_jwt",
        ]
        for name in bad {
            let token = try XCTUnwrap(minted.tokens[name], name)
            let response = try get("/me", token: token)
            XCTAssertEqual(response.status, 401, "\(name): \(response.text)")
            XCTAssertEqual(response.json["code"] as? String, "unauthenticated", name)
            XCTAssertEqual(
                response.header("WWW-Authenticate"), #"Bearer realm="reshape", error="invalid_token""#, name)
            XCTAssertEqual(response.header("Cache-Control"), "no-store", name)
            XCTAssertFalse(response.text.contains(token), "\(name): the token is never echoed")
        }
        let missing = try RawHTTP.get(port: server.port, "/me")
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.header("WWW-Authenticate"), #"Bearer realm="reshape""#, "no error without a token")
        let basic = try RawHTTP.get(port: server.port, "/me", headers: ["Authorization: Basic dXNlcjpwYXNz"])
        XCTAssertEqual(basic.status, 401)

        XCTAssertEqual(try upstream.entries("/users").count, 0, "no token reached the upstream")
        XCTAssertEqual(try authCount("expired"), 1)
        XCTAssertEqual(try authCount("bad-claims"), 2)
        XCTAssertEqual(try authCount("bad-signature"), 4)
        XCTAssertEqual(try authCount("unknown-key"), 1)
        XCTAssertEqual(try authCount("missing"), 2)
        XCTAssertEqual(
            try upstream.entries("/_demo/jwks.json").count, 2, "the first fetch, and one for the unknown kid")

        let log = server.child.stdout + server.child.stderr
        XCTAssertTrue(log.contains(#""auth_reason":"token expired""#), log)
        for name in bad { XCTAssertFalse(log.contains(minted.tokens[name]!), "\(name) is not logged") }
    }

    func testARotatedKeyIsAcceptedAfterOneRefetch() throws {
        let minted = try Self.mint()
        XCTAssertEqual(try get("/me", token: minted.tokens["ada"]).status, 200)
        XCTAssertEqual(try upstream.entries("/_demo/jwks.json").count, 1)
        try minted.rotated.write(to: keysFile, atomically: true, encoding: .utf8)

        let rotated = try get("/me", token: minted.tokens["rotated"])
        XCTAssertEqual(rotated.status, 200, rotated.text)
        XCTAssertEqual(try upstream.entries("/_demo/jwks.json").count, 2, "one refetch for the new kid")
        XCTAssertEqual(try get("/me", token: minted.tokens["ada"]).status, 200, "the old key is still published")

        // A kid nobody publishes does not make every request a fetch: one refetch per 30 s.
        XCTAssertEqual(try get("/me", token: minted.tokens["unknown_kid"]).status, 401)
        XCTAssertEqual(try get("/me", token: minted.tokens["unknown_kid"]).status, 401)
        XCTAssertEqual(try upstream.entries("/_demo/jwks.json").count, 2)
    }

    func testTwoUsersAreCachedApart() throws {
        let minted = try Self.mint()
        let ada = try get("/me", token: minted.tokens["ada"])
        let grace = try get("/me", token: minted.tokens["grace"])
        XCTAssertEqual(ada.status, 200)
        XCTAssertEqual(grace.status, 200)
        XCTAssertNotEqual(ada.text, grace.text)
        XCTAssertTrue(ada.text.contains("Ada Lovelace"), ada.text)
        XCTAssertTrue(ada.text.contains(#""objectId":"\#(minted.ada)""#), ada.text)
        XCTAssertTrue(grace.text.contains(#""objectId":"\#(minted.grace)""#), grace.text)
        XCTAssertTrue(grace.text.contains("Grace Hopper"), grace.text)
        let again = try get("/me", token: minted.tokens["ada"])
        XCTAssertEqual(again.text, ada.text)
        XCTAssertEqual(again.header("Reshape-Cache"), "hit")
        XCTAssertEqual(try get("/me", token: minted.tokens["grace"]).header("Reshape-Cache"), "hit")
        XCTAssertEqual(try upstream.entries("/users/\(minted.ada).json").count, 1)
        XCTAssertEqual(try upstream.entries("/users/\(minted.grace).json").count, 1)
        // A cached answer is still only for a valid token.
        XCTAssertEqual(try get("/me", token: minted.tokens["bad_signature"]).status, 401)
    }

    func testARequiredClaimThatDoesNotMatchIs403() throws {
        let minted = try Self.mint()
        let refused = try get("/verified-me", token: minted.tokens["unverified_email"])
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(refused.json["code"] as? String, "forbidden")
        XCTAssertEqual(try get("/verified-me", token: minted.tokens["ada"]).status, 200)
        XCTAssertEqual(try upstream.entries("/users/").count, 1)
        XCTAssertEqual(try authCount("forbidden"), 1)
    }

    func testClaimsFillTheQueryAndHeadersAndAMissingOneIs403() throws {
        let minted = try Self.mint()
        let response = try get("/my-users", token: minted.tokens["ada"])
        XCTAssertEqual(response.status, 200, response.text)
        guard case .object(let object) = try JSON.parse(response.body) else { return XCTFail(response.text) }
        XCTAssertEqual(object.members.map(\.key), [minted.ada], "the query scoped the answer to the user")
        let sent = try XCTUnwrap(try upstream.entries("/users.json").first)
        XCTAssertEqual(
            sent.target, "/users.json?orderBy=%22%24key%22&equalTo=%22\(minted.ada)%22")
        XCTAssertEqual(sent.header("X-User"), "user \(minted.ada)")
        XCTAssertEqual(sent.header("X-Tier"), "3")
        let noTier = try get("/my-users", token: minted.tokens["no_tier"])
        XCTAssertEqual(noTier.status, 403, noTier.text)
        XCTAssertEqual(try upstream.entries("/users.json").count, 1)
    }

    func testALiveStreamEndsWhenItsTokenExpires() throws {
        let minted = try Self.mint()
        let token = try Self.runMinter(minted.directory, ["short", minted.ada, "3"])
        let client = try EventStreamClient(port: server.port, "/live-me", headers: ["Authorization: Bearer \(token)"])
        defer { client.close() }
        try client.readHead()
        XCTAssertEqual(client.status, 200)
        let snapshot = try client.expect("snapshot")
        XCTAssertTrue(snapshot.data.contains("Ada Lovelace"), snapshot.data)
        let error = try client.expect("error", timeout: 8)
        XCTAssertTrue(error.data.contains(#""code":"token-expired""#), error.data)
        XCTAssertTrue(try client.waitForEnd())

        let refused = try EventStreamClient(port: server.port, "/live-me")
        defer { refused.close() }
        try refused.readHead()
        XCTAssertEqual(refused.status, 401, "no stream without a token")
    }

    func testKeysThatCannotBeFetchedAre503() throws {
        server.stop()
        // Nothing listens on the port a stopped demo upstream had.
        let gone = try DemoUpstream()
        let port = gone.port
        gone.child.stop()
        server = try ReshapeServer(rules: Self.rules(upstream.port, jwksPort: port), arguments: ["--workers", "1"])
        let response = try get("/me", token: try Self.mint().tokens["ada"])
        XCTAssertEqual(response.status, 503, response.text)
        XCTAssertEqual(response.json["code"] as? String, "auth-unavailable")
        XCTAssertEqual(try upstream.entries("/users").count, 0)
        XCTAssertEqual(try authCount("unavailable"), 1)
    }

    // MARK: - Helpers

    private func get(_ target: String, token: String?) throws -> RawHTTP.Response {
        try RawHTTP.get(port: server.port, target, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    private func authCount(_ result: String) throws -> Int {
        let text = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        let prefix = "reshape_auth_total{verifier=\"app-users\",result=\"\(result)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? -1
    }

    static func mint() throws -> Minted {
        if let minted { return try minted.get() }
        let result = Result { () throws -> Minted in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let output = try runMinter(directory, [])
            guard case .object(let document) = try JSON.parse(Array(output.utf8)),
                case .string(let ada)? = document["ada"], case .string(let grace)? = document["grace"],
                let jwks = document["jwks"], let rotated = document["jwks_rotated"],
                case .object(let tokens)? = document["tokens"]
            else { throw HarnessError("mint_route_tokens.py printed something else") }
            var named: [String: String] = [:]
            for member in tokens.members { if case .string(let token) = member.value { named[member.key] = token } }
            return Minted(
                directory: directory, ada: ada, grace: grace,
                jwks: String(decoding: jwks.serialized(), as: UTF8.self),
                rotated: String(decoding: rotated.serialized(), as: UTF8.self), tokens: named)
        }
        minted = result
        return try result.get()
    }

    static func runMinter(_ directory: URL, _ arguments: [String]) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let python = root.appendingPathComponent(".build-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw HarnessError("no \(python.path): run scripts/setup-python-tools.sh")
        }
        let process = Process()
        process.executableURL = python
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("mint_route_tokens.py")
        process.arguments = [script.path, directory.path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw HarnessError(
                "mint_route_tokens.py failed (PyJWT missing? run scripts/setup-python-tools.sh): \(text)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
