import ReshapeJSON

/// Checks a bearer token (a JWS in compact form, RFC 7515, carrying JWT claims, RFC 7519) as
/// a verifier of the rules says: its signature by the key its `kid` names, with an algorithm
/// the verifier accepts that fits that key, then `iss`, `aud`, `exp`, `nbf`, `iat` (with
/// `leeway`) and a non-empty `sub`. Pure: the keys and the time come in.
public struct TokenVerifier: Sendable {
    public var issuer: String
    public var audience: String
    public var algorithms: Set<JWSAlgorithm>
    /// Clock skew allowed for `exp`, `nbf` and `iat`.
    public var leewaySeconds: Double

    public static let defaultLeewaySeconds = 30.0
    /// Longer than any real token: the header and the claims are parsed only below this.
    public static let maxTokenBytes = 16 * 1024

    public init(
        issuer: String, audience: String, algorithms: Set<JWSAlgorithm> = JWSAlgorithm.standard,
        leewaySeconds: Double = TokenVerifier.defaultLeewaySeconds
    ) {
        self.issuer = issuer
        self.audience = audience
        self.algorithms = algorithms
        self.leewaySeconds = leewaySeconds
    }

    /// The token of an `Authorization` header value (`Bearer <token>`, RFC 6750 §2.1).
    public static func bearerToken(_ authorization: String?) -> Result<Substring, AuthFailure> {
        guard let authorization else { return .failure(.missing) }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .failure(.missing) }
        let token = parts[1].trimmingPrefix(while: { $0 == " " })
        guard !token.isEmpty else { return .failure(.missing) }
        return .success(Substring(token))
    }

    /// The claims of `token` if it passes every check at `now` (seconds since the Unix epoch).
    public func verify(_ token: Substring, keys: KeySet, now: Double) -> Result<VerifiedToken, AuthFailure> {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxTokenBytes else { return .failure(.malformed("the token is too long")) }
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { return .failure(.malformed("not a JWS in compact form")) }
        guard let headerBytes = Base64URL.decode(bytes[..<dots[0]]),
            let claimBytes = Base64URL.decode(bytes[(dots[0] + 1)..<dots[1]]),
            let signature = Base64URL.decode(bytes[(dots[1] + 1)...])
        else { return .failure(.malformed("a part is not base64url")) }
        guard case .object(let header)? = Self.object(headerBytes) else {
            return .failure(.malformed("the header is not a JSON object"))
        }
        guard case .string(let name)? = header["alg"] else { return .failure(.malformed("the header has no `alg`")) }
        guard let algorithm = JWSAlgorithm(rawValue: name), algorithms.contains(algorithm) else {
            return .failure(.algorithmRefused(name))
        }
        // Critical extensions this verifier does not know must not be ignored (RFC 7515 §4.1.11).
        guard header["crit"] == nil else { return .failure(.malformed("the header has `crit`")) }
        var keyID: String?
        if let kid = header["kid"] {
            guard case .string(let text) = kid else { return .failure(.malformed("`kid` is not a string")) }
            keyID = text
        }
        guard let key = keys.key(for: keyID) else { return .failure(.unknownKey) }
        guard key.kind == algorithm.keyKind, key.algorithm == nil || key.algorithm == algorithm else {
            return .failure(.algorithmRefused(name))
        }
        guard key.verifies(signature, of: bytes[..<dots[1]], with: algorithm) else { return .failure(.badSignature) }
        guard case .object(let claims)? = Self.object(claimBytes) else {
            return .failure(.badClaims("the claims are not a JSON object"))
        }
        return check(claims, now: now)
    }

    /// The registered claims, once the signature is known good.
    private func check(_ claims: JSONObject, now: Double) -> Result<VerifiedToken, AuthFailure> {
        guard case .string(let iss)? = claims["iss"], Self.same(iss, issuer) else {
            return .failure(.badClaims("`iss`"))
        }
        switch claims["aud"] {
        case .string(let aud)? where Self.same(aud, audience): break
        case .array(let list)?
        where list.contains(where: { if case .string(let aud) = $0 { Self.same(aud, audience) } else { false } }):
            break
        default: return .failure(.badClaims("`aud`"))
        }
        guard case .number(let expNumber)? = claims["exp"], case let exp = expNumber.doubleValue, exp.isFinite else {
            return .failure(.badClaims("`exp` is missing"))
        }
        guard now < exp + leewaySeconds else { return .failure(.expired) }
        for name in ["nbf", "iat"] {
            guard let value = claims[name] else { continue }
            guard case .number(let number) = value, number.doubleValue.isFinite else {
                return .failure(.badClaims("`\(name)` is not a number"))
            }
            guard number.doubleValue <= now + leewaySeconds else {
                return .failure(.badClaims("`\(name)` is in the future"))
            }
        }
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty else {
            return .failure(.badClaims("`sub` is missing or empty"))
        }
        return .success(VerifiedToken(subject: subject, claims: claims, expiresAt: exp))
    }

    /// A JSON object; nil otherwise. The parser refuses a member named twice (two `alg`s, or
    /// two `sub`s, would let two readers of the same token disagree).
    private static func object(_ bytes: [UInt8]) -> JSON? {
        guard let value = try? JSON.parse(bytes), case .object = value else { return nil }
        return value
    }

    /// String claims compare as RFC 7519 §2 says: their code points, with no normalization
    /// (Swift's `==` would take `é` and `e` + U+0301 for the same issuer or audience).
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
}

/// A token that passed: its subject, every claim (for `{auth.<claim>}`), and when it expires.
public struct VerifiedToken: Sendable {
    public let subject: String
    public let claims: JSONObject
    /// `exp`, seconds since the Unix epoch.
    public let expiresAt: Double

    /// A claim as text for a template: a string as it is, a number as written, a boolean as
    /// `true`/`false`; nil for a missing claim or one of another type.
    public func claimText(_ name: String) -> String? {
        switch claims[name] {
        case .string(let text)?: text
        case .number(let number)?: number.text
        case .bool(let flag)?: flag ? "true" : "false"
        default: nil
        }
    }
}

/// Why a request's token was not accepted. Its `reason` goes to the log (never the token);
/// its `metricLabel` to `reshape_auth_total`.
public enum AuthFailure: Error, Sendable, Equatable {
    /// No `Authorization: Bearer` header.
    case missing
    /// Not a JWS in compact form, or its header is not one.
    case malformed(String)
    /// `alg` is `none`, an HMAC, not in the verifier's list, or does not fit the key.
    case algorithmRefused(String)
    /// No key of the set has the token's `kid`.
    case unknownKey
    case badSignature
    case expired
    /// `iss`, `aud`, `nbf`, `iat` or `sub` is wrong.
    case badClaims(String)

    public var metricLabel: String {
        switch self {
        case .missing: "missing"
        case .malformed, .algorithmRefused, .badSignature: "bad-signature"
        case .unknownKey: "unknown-key"
        case .expired: "expired"
        case .badClaims: "bad-claims"
        }
    }

    public var reason: String {
        switch self {
        case .missing: "no bearer token"
        case .malformed(let why): "malformed token: \(why)"
        case .algorithmRefused(let alg): "algorithm \(alg.prefix(16)) not accepted"
        case .unknownKey: "no key with the token's kid"
        case .badSignature: "bad signature"
        case .expired: "token expired"
        case .badClaims(let which): "bad claims: \(which)"
        }
    }
}
