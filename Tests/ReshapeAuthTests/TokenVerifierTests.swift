import Foundation
import ReshapeJSON
import XCTest

@testable import ReshapeAuth

/// Tokens minted by PyJWT (`mint_tokens.py`, in the venv `scripts/setup-python-tools.sh`
/// makes), checked by `TokenVerifier` against the key set PyJWT published: every way a token
/// must be refused, and the claims of one that passes.
final class TokenVerifierTests: XCTestCase {
    struct Minted {
        let now: Double
        let verifier: TokenVerifier
        let keys: KeySet
        let rotated: KeySet
        let tokens: [String: String]
    }

    nonisolated(unsafe) static var minted: Result<Minted, Error>?

    static func mint() throws -> Minted {
        if let minted { return try minted.get() }
        let result = Result { try runMinter() }
        minted = result
        return try result.get()
    }

    private static func runMinter() throws -> Minted {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = root.appendingPathComponent(".build-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw MintError("no \(python.path): run scripts/setup-python-tools.sh")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("mint_tokens.py").path
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw MintError("mint_tokens.py failed (PyJWT missing? run scripts/setup-python-tools.sh): \(text)")
        }
        guard case .object(let document) = try JSON.parse([UInt8](data)),
            case .number(let now)? = document["now"], case .string(let issuer)? = document["issuer"],
            case .string(let audience)? = document["audience"], let jwks = document["jwks"],
            let rotated = document["jwks_rotated"], case .object(let tokens)? = document["tokens"]
        else { throw MintError("mint_tokens.py printed something else") }
        var named: [String: String] = [:]
        for member in tokens.members { if case .string(let token) = member.value { named[member.key] = token } }
        return Minted(
            now: now.doubleValue, verifier: TokenVerifier(issuer: issuer, audience: audience),
            keys: try KeySet.parse(jwks.serialized()).get(), rotated: try KeySet.parse(rotated.serialized()).get(),
            tokens: named)
    }

    struct MintError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func verify(_ name: String, keys: KeySet? = nil, verifier: TokenVerifier? = nil, at now: Double? = nil)
        throws -> Result<VerifiedToken, AuthFailure>
    {
        let minted = try Self.mint()
        let token = try XCTUnwrap(minted.tokens[name], "no token \(name)")
        return (verifier ?? minted.verifier).verify(Substring(token), keys: keys ?? minted.keys, now: now ?? minted.now)
    }

    func testRS256AndES256TokensPassWithTheirClaims() throws {
        for name in ["rs256", "es256", "aud_list", "expired_within_leeway"] {
            let verified = try verify(name).get()
            XCTAssertEqual(verified.subject, "user-7", name)
            XCTAssertEqual(verified.claimText("email_verified"), "true")
            XCTAssertEqual(verified.claimText("tier"), "3")
            XCTAssertEqual(verified.claimText("email"), "ada@example.com")
            XCTAssertNil(verified.claimText("missing"))
        }
    }

    func testEveryBadTokenIsRefusedForItsReason() throws {
        let expected: [(String, String)] = [
            ("expired", "expired"),
            ("wrong_aud", "bad-claims"), ("wrong_iss", "bad-claims"), ("nbf_future", "bad-claims"),
            ("iat_future", "bad-claims"), ("no_exp", "bad-claims"), ("no_sub", "bad-claims"),
            ("empty_sub", "bad-claims"),
            ("alg_none", "bad-signature"), ("hs256_public_key_secret", "bad-signature"),
            ("rs384", "bad-signature"), ("es256_naming_rsa_key", "bad-signature"),
            ("bad_signature", "bad-signature"), ("unknown_kid", "unknown-key"),
        ]
        for (name, label) in expected {
            switch try verify(name) {
            case .success: XCTFail("\(name) was accepted")
            case .failure(let failure):
                XCTAssertEqual(failure.metricLabel, label, "\(name): \(failure.reason)")
                XCTAssertFalse(
                    failure.reason.contains(try Self.mint().tokens[name]!), "the reason never holds the token")
            }
        }
    }

    func testTheAlgorithmListIsTheVerifiers() throws {
        var verifier = try Self.mint().verifier
        verifier.algorithms = [.rs384]
        XCTAssertNoThrow(try verify("rs384", verifier: verifier).get())
        guard case .failure(.algorithmRefused("RS256")) = try verify("rs256", verifier: verifier) else {
            return XCTFail("RS256 is not in the list")
        }
    }

    func testClaimsCompareByCodePointsNotByCanonicalEquivalence() throws {
        var verifier = try Self.mint().verifier
        verifier.audience = "my-app\u{E9}"
        guard case .failure(.badClaims) = try verify("aud_decomposed", verifier: verifier) else {
            return XCTFail("\"é\" and \"e\" + U+0301 are different audiences")
        }
        verifier.audience = "my-appe\u{301}"
        XCTAssertNoThrow(try verify("aud_decomposed", verifier: verifier).get())
    }

    func testWeakRSAKeysAreLeftOut() {
        func skips(_ n: [UInt8], _ e: String) -> [KeySetError.Skip] {
            let text = #"{"keys":[{"kty":"RSA","kid":"k","n":""# + Self.base64URL(n) + #"","e":""# + e + #""}]}"#
            guard case .noUsableKey(let skipped)? = KeySet.parse(Array(text.utf8)).failureValue else { return [] }
            return skipped
        }
        var modulus = [UInt8](repeating: 0xC5, count: 256)
        modulus[255] = 0xC7
        XCTAssertEqual(
            skips(modulus, "AQ"), [.malformed("an RSA exponent that is even, below 3 or over 64 bits")], "e = 1")
        XCTAssertEqual(
            skips(modulus, "Ag"), [.malformed("an RSA exponent that is even, below 3 or over 64 bits")], "e = 2")
        modulus[0] = 0x7F
        XCTAssertEqual(
            skips(modulus, "AQAB"), [.malformed("an RSA key of 2047 bits (2048 to 16384 are used)")], "2047 bits")
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0...chunk.count { text.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
            index += 3
        }
        return text
    }

    func testARotatedKeyIsFoundInTheNewSet() throws {
        XCTAssertNoThrow(try verify("unknown_kid", keys: try Self.mint().rotated).get())
    }

    func testTheLeewayBoundsExpiry() throws {
        let minted = try Self.mint()
        XCTAssertNoThrow(try verify("rs256", at: minted.now + 3600 + 29).get())
        guard case .failure(.expired) = try verify("rs256", at: minted.now + 3600 + 30) else {
            return XCTFail("past exp + leeway the token is expired")
        }
    }

    func testNotATokenAndNoBearerAreRefused() throws {
        let minted = try Self.mint()
        for text in ["", "abc", "a.b", "a.b.c.d", "....", "e30.e30.", "!!!.e30.AAAA", "eyJhbGciOiJSUzI1NiJ9.e30"] {
            guard
                case .failure(let failure) = minted.verifier.verify(Substring(text), keys: minted.keys, now: minted.now)
            else { return XCTFail("'\(text)' was accepted") }
            XCTAssertEqual(failure.metricLabel, "bad-signature", text)
        }
        XCTAssertEqual(TokenVerifier.bearerToken(nil), .failure(.missing))
        XCTAssertEqual(TokenVerifier.bearerToken("Basic YWxhZGRpbjpvcGVu"), .failure(.missing))
        XCTAssertEqual(TokenVerifier.bearerToken("Bearer "), .failure(.missing))
        XCTAssertEqual(TokenVerifier.bearerToken("bearer abc.def.ghi"), .success("abc.def.ghi"))
    }

    func testKeySetsSkipWhatTheyCannotUse() throws {
        let minted = try Self.mint()
        XCTAssertEqual(minted.keys.keys.map(\.id), ["rsa-1", "ec-1"])
        XCTAssertEqual(minted.keys.skipped, [.unsupportedKeyType], "the HMAC key is left out")
        XCTAssertEqual(KeySet.parse(Array("{".utf8)).failureValue, .notJSON)
        XCTAssertEqual(KeySet.parse(Array(#"{"keys":{}}"#.utf8)).failureValue, .noKeys)
        let weak = #"{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"k"}]}"#
        guard case .noUsableKey(let skips)? = KeySet.parse(Array(weak.utf8)).failureValue else {
            return XCTFail("a 17-bit RSA key is no key")
        }
        XCTAssertEqual(skips, [.malformed("an RSA key of 17 bits (2048 to 16384 are used)")])
        let offCurve =
            #"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE"}]}"#
        XCTAssertNotNil(KeySet.parse(Array(offCurve.utf8)).failureValue, "a point off the curve is refused")
    }

    func testBase64URLIsStrict() {
        XCTAssertEqual(Base64URL.decode(Array("aGk".utf8)), Array("hi".utf8))
        XCTAssertEqual(Base64URL.decode(Array("".utf8)), [])
        XCTAssertNil(Base64URL.decode(Array("aGk=".utf8)), "no padding")
        XCTAssertNil(Base64URL.decode(Array("aGl".utf8)), "non-zero left-over bits")
        XCTAssertNil(Base64URL.decode(Array("a+/b".utf8)), "the standard alphabet is not base64url")
        XCTAssertNil(Base64URL.decode(Array("a".utf8)))
    }
}

extension Result {
    var failureValue: Failure? { if case .failure(let failure) = self { failure } else { nil } }
}
