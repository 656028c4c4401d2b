import CCrypto
import ReshapeJSON

/// One public key of a key set (RFC 7517), as OpenSSL holds it: an RSA key from its modulus
/// and exponent, or a P-256 key from its point. Immutable once made, so it may be shared by
/// every worker.
public final class VerificationKey: @unchecked Sendable {
    public enum Kind: Sendable, Equatable {
        case rsa
        case p256
    }

    /// `kid`; nil when the key has none.
    public let id: String?
    public let kind: Kind
    /// The JWK's `alg`, when it names one: a token must then use exactly that.
    public let algorithm: JWSAlgorithm?
    private let key: OpaquePointer

    /// A key of a JWK; nil with the reason when it is not one this verifier can use.
    static func make(_ jwk: JSONObject) -> Result<VerificationKey, KeySetError.Skip> {
        if case .string(let use)? = jwk["use"], use != "sig" { return .failure(.notForSignatures) }
        var algorithm: JWSAlgorithm?
        if let alg = jwk["alg"] {
            guard case .string(let name) = alg, let known = JWSAlgorithm(rawValue: name) else {
                return .failure(.unsupportedAlgorithm)
            }
            algorithm = known
        }
        var id: String?
        if let kid = jwk["kid"] {
            guard case .string(let text) = kid else { return .failure(.malformed("`kid` is not a string")) }
            id = text
        }
        let kind: Kind
        let key: OpaquePointer?
        switch jwk["kty"] {
        case .string("RSA")?:
            kind = .rsa
            guard let n = bytes(jwk["n"]), let e = bytes(jwk["e"]), !n.isEmpty, !e.isEmpty else {
                return .failure(.malformed("an RSA key needs base64url `n` and `e`"))
            }
            // Below 2048 bits an RSA signature is not worth checking (RFC 7518 §3.3); above 16384
            // a key only costs time. An even or tiny exponent makes forging trivial (e = 1 verifies
            // a bare PKCS #1 encoding of the digest).
            let modulus = Array(n.drop(while: { $0 == 0 }))
            let bits = modulus.isEmpty ? 0 : modulus.count * 8 - modulus[0].leadingZeroBitCount
            guard (2048...16384).contains(bits) else {
                return .failure(.malformed("an RSA key of \(bits) bits (2048 to 16384 are used)"))
            }
            let exponent = Array(e.drop(while: { $0 == 0 }))
            guard let last = exponent.last, exponent.count <= 8, last & 1 == 1, exponent.count > 1 || last >= 3 else {
                return .failure(.malformed("an RSA exponent that is even, below 3 or over 64 bits"))
            }
            key = reshape_rsa_public_key(n, n.count, e, e.count)
        case .string("EC")?:
            kind = .p256
            guard case .string("P-256")? = jwk["crv"] else { return .failure(.unsupportedCurve) }
            guard let x = bytes(jwk["x"]), let y = bytes(jwk["y"]), x.count == 32, y.count == 32 else {
                return .failure(.malformed("a P-256 key needs 32-byte base64url `x` and `y`"))
            }
            key = reshape_ec_p256_public_key(x, y)
        default:
            return .failure(.unsupportedKeyType)
        }
        guard let key else { return .failure(.malformed("OpenSSL refused the key")) }
        if let algorithm, algorithm.keyKind != kind {
            EVP_PKEY_free(key)
            return .failure(.malformed("`alg` \(algorithm.rawValue) does not fit the key type"))
        }
        return .success(VerificationKey(id: id, kind: kind, algorithm: algorithm, key: key))
    }

    private init(id: String?, kind: Kind, algorithm: JWSAlgorithm?, key: OpaquePointer) {
        self.id = id
        self.kind = kind
        self.algorithm = algorithm
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    private static func bytes(_ value: JSON?) -> [UInt8]? {
        guard case .string(let text)? = value else { return nil }
        return Base64URL.decode(text.utf8)
    }

    /// Whether `signature` is this key's, by `algorithm`, over `message`.
    func verifies(_ signature: [UInt8], of message: ArraySlice<UInt8>, with algorithm: JWSAlgorithm) -> Bool {
        guard algorithm.keyKind == kind, let digest = algorithm.digest else { return false }
        return message.withUnsafeBufferPointer { message in
            switch kind {
            case .rsa:
                return reshape_verify_signature(
                    key, digest, signature, signature.count, message.baseAddress, message.count) == 1
            case .p256:
                // JWS writes r and s side by side (RFC 7518 §3.4); OpenSSL wants them as DER.
                guard signature.count == 64 else { return false }
                var der: UnsafeMutablePointer<UInt8>?
                let length = reshape_ecdsa_signature_der(signature, 32, &der)
                defer { reshape_openssl_free(der) }
                guard length > 0, let der else { return false }
                return reshape_verify_signature(key, digest, der, Int(length), message.baseAddress, message.count) == 1
            }
        }
    }
}
