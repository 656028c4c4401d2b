// One RSA key pair of the demo's identity provider. The private key lives in OpenSSL's memory
// only: made at start, never written anywhere, so no private key is ever committed.
import CCrypto

final class SigningKey: @unchecked Sendable {
    /// RFC 7638's thumbprint of the public key: stable for the key, new for every new key.
    let id: String
    /// The public key's modulus and exponent, big-endian, as a JWK carries them.
    let modulus: [UInt8]
    let exponent: [UInt8]
    /// The `EVP_PKEY`; only read after `init` (OpenSSL allows concurrent signing then).
    private let key: OpaquePointer

    /// A new RSA-2048 key pair; nil if OpenSSL fails.
    init?() {
        guard let key = reshape_rsa_generate(2048) else { return nil }
        func number(_ name: String) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 512)
            let count = reshape_rsa_public_number(key, name, &bytes, bytes.count)
            return Array(bytes.prefix(count))
        }
        let modulus = number("n")
        let exponent = number("e")
        guard !modulus.isEmpty, !exponent.isEmpty else {
            EVP_PKEY_free(key)
            return nil
        }
        self.key = key
        self.modulus = modulus
        self.exponent = exponent
        // The members in lexicographic order, no spaces (RFC 7638 §3.2).
        let canonical = Array(
            "{\"e\":\"\(Base64URL.encode(exponent))\",\"kty\":\"RSA\",\"n\":\"\(Base64URL.encode(modulus))\"}".utf8)
        var digest = [UInt8](repeating: 0, count: 32)
        _ = SHA256(canonical, canonical.count, &digest)
        id = Base64URL.encode(digest)
    }

    deinit { EVP_PKEY_free(key) }

    /// The public key as a JWK (RFC 7517 §4, RFC 7518 §6.3.1), as Google publishes its keys.
    var publicJWK: DemoValue {
        .object([
            ("kty", .string("RSA")), ("kid", .string(id)), ("use", .string("sig")), ("alg", .string("RS256")),
            ("n", .string(Base64URL.encode(modulus))), ("e", .string(Base64URL.encode(exponent))),
        ])
    }

    /// The RS256 signature of `message`; nil if OpenSSL fails.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        var signature = [UInt8](repeating: 0, count: 512)
        let count = reshape_sign_sha256(key, message, message.count, &signature, signature.count)
        return count > 0 ? Array(signature.prefix(count)) : nil
    }
}
