import CCrypto

/// The signature algorithms a verifier may accept (RFC 7518 §3). `none` and the HMAC ones are
/// not here: a token signed with a shared secret, or not signed, is never accepted.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256"
    case rs384 = "RS384"
    case rs512 = "RS512"
    case es256 = "ES256"

    /// Without `algorithms:`.
    public static let standard: Set<JWSAlgorithm> = [.rs256, .es256]

    /// The kind of key that can verify it.
    var keyKind: VerificationKey.Kind {
        switch self {
        case .rs256, .rs384, .rs512: .rsa
        case .es256: .p256
        }
    }

    var digest: OpaquePointer? {
        switch self {
        case .rs256, .es256: EVP_sha256()
        case .rs384: EVP_sha384()
        case .rs512: EVP_sha512()
        }
    }
}
