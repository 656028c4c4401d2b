import Foundation
import ReshapeAuth
import ReshapeJSON
import ReshapeTestSupport
import XCTest

/// The demo upstream as an identity provider (issue 28): the tokens it mints verify with
/// Reshape's own verifier against the key set it publishes, rotation publishes the new key
/// beside the old one, and `--jwks FILE` serves a test's keys instead.
final class DemoIdentityTests: XCTestCase {
    private var upstream: DemoUpstream!
    private let verifier = TokenVerifier(
        issuer: "https://securetoken.google.com/reshape-demo", audience: "reshape-demo", algorithms: [.rs256])

    override func tearDown() {
        upstream?.child.stop()
    }

    func testMintedTokenVerifiesWithThePublishedKeySet() throws {
        upstream = try DemoUpstream()
        let published = try RawHTTP.get(port: upstream.port, "/_demo/jwks.json")
        XCTAssertEqual(published.status, 200)
        XCTAssertEqual(published.header("Content-Type"), "application/json")
        XCTAssertEqual(published.header("Cache-Control"), "public, max-age=300")
        let keys = try KeySet.parse(published.body).get()
        XCTAssertEqual(keys.keys.count, 1)
        XCTAssertEqual(keys.keys.first?.kind, .rsa)

        let token = try mint("sub=user-7&ttl=600&claim.admin=true&claim.level=3&claim.team=blue")
        let verified = try verifier.verify(Substring(token), keys: keys, now: Date().timeIntervalSince1970).get()
        XCTAssertEqual(verified.subject, "user-7")
        XCTAssertEqual(verified.claimText("user_id"), "user-7")
        XCTAssertEqual(verified.claimText("admin"), "true")
        XCTAssertEqual(verified.claimText("level"), "3")
        XCTAssertEqual(verified.claimText("team"), "blue")
        XCTAssertEqual(verified.expiresAt - (try XCTUnwrap(Double(verified.claimText("iat") ?? ""))), 600)

        // A negative ttl mints a token that has already expired.
        let expired = try mint("sub=user-7&ttl=-3600")
        XCTAssertEqual(failure(expired, keys), .expired)

        // Key set fetches are logged (a test counts Reshape's), the demo's other controls not.
        _ = try RawHTTP.get(port: upstream.port, "/_demo/streams")
        let targets = try upstream.log().compactMap { $0["target"] as? String }
        XCTAssertEqual(targets, ["/_demo/jwks.json"])
    }

    func testRotationPublishesTheNewKeyFirstAndKeepsThePrevious() throws {
        upstream = try DemoUpstream(arguments: ["--jwks-max-age", "60"])
        let before = try keySet()
        let oldToken = try mint("sub=ada")

        let rotated = try post("/_demo/keys/rotate")
        XCTAssertEqual(rotated.status, 200)
        let newID = try XCTUnwrap(rotated.json["kid"] as? String)
        let published = try RawHTTP.get(port: upstream.port, "/_demo/jwks.json")
        XCTAssertEqual(published.header("Cache-Control"), "public, max-age=60")
        let both = try KeySet.parse(published.body).get()
        XCTAssertEqual(both.keys.map(\.id), [newID, before.keys[0].id])

        let newToken = try mint("sub=ada")
        let now = Date().timeIntervalSince1970
        XCTAssertEqual(try verifier.verify(Substring(newToken), keys: both, now: now).get().subject, "ada")
        XCTAssertEqual(try verifier.verify(Substring(oldToken), keys: both, now: now).get().subject, "ada")
        // The key set Reshape held before the rotation does not know the new kid: it refetches.
        XCTAssertEqual(failure(newToken, before), .unknownKey)

        XCTAssertEqual(try post("/_demo/keys/rotate?drop-old=true").status, 200)
        let onlyNew = try keySet()
        XCTAssertEqual(onlyNew.keys.count, 1)
        XCTAssertNotEqual(onlyNew.keys[0].id, newID)
        XCTAssertEqual(failure(newToken, onlyNew), .unknownKey)
    }

    func testBadTokenRequestsAreFirebaseStyle400s() throws {
        upstream = try DemoUpstream()
        for query in ["", "sub=", "sub=a&ttl=soon", "sub=a&ttl=99999999999999999999", "sub=a&claim.=x"] {
            let answer = try post("/_demo/token?\(query)")
            XCTAssertEqual(answer.status, 400, query)
            XCTAssertNotNil(answer.json["error"] as? String, query)
        }
        XCTAssertEqual(try RawHTTP.get(port: upstream.port, "/_demo/token?sub=a").status, 405)
        XCTAssertEqual(try RawHTTP.get(port: upstream.port, "/_demo/jwks.json").status, 200, "still serving")
    }

    func testKeySetFileIsServedAsWrittenAndNoTokenIsMinted() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("demo-jwks-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"keys":[]}"#.utf8).write(to: file)
        upstream = try DemoUpstream(arguments: ["--jwks", file.path])
        XCTAssertEqual(try RawHTTP.get(port: upstream.port, "/_demo/jwks.json").text, #"{"keys":[]}"#)
        // Read again on every request: a test rotates keys by rewriting the file.
        try Data(#"{"keys":[{"kty":"oct"}]}"#.utf8).write(to: file, options: .atomic)
        XCTAssertEqual(try RawHTTP.get(port: upstream.port, "/_demo/jwks.json").text, #"{"keys":[{"kty":"oct"}]}"#)

        let refused = try post("/_demo/token?sub=ada")
        XCTAssertEqual(refused.status, 409)
        XCTAssertTrue((refused.json["error"] as? String ?? "").contains("generated keys"), refused.text)
        XCTAssertEqual(try post("/_demo/keys/rotate").status, 409)
    }

    /// Why `verifier` refuses `token` now; nil if it accepts it.
    private func failure(_ token: String, _ keys: KeySet) -> AuthFailure? {
        guard
            case .failure(let failure) = verifier.verify(
                Substring(token), keys: keys, now: Date().timeIntervalSince1970)
        else { return nil }
        return failure
    }

    private func keySet() throws -> KeySet {
        try KeySet.parse(try RawHTTP.get(port: upstream.port, "/_demo/jwks.json").body).get()
    }

    private func mint(_ query: String) throws -> String {
        let answer = try post("/_demo/token?\(query)")
        XCTAssertEqual(answer.status, 200, answer.text)
        return try XCTUnwrap(answer.json["token"] as? String, answer.text)
    }

    private func post(_ target: String) throws -> RawHTTP.Response {
        var client = try RawHTTP(port: upstream.port)
        defer { client.close() }
        client.send("POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        guard let response = client.readResponse() else { throw HarnessError("no response to POST \(target)") }
        return response
    }
}
