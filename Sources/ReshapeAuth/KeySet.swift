import ReshapeJSON

/// A JSON Web Key Set (RFC 7517 §5): the keys tokens may be signed with. Keys this verifier
/// cannot use (encryption keys, other key types or curves) are skipped, not fatal: a provider
/// may publish them beside the signing keys.
public struct KeySet: Sendable {
    public let keys: [VerificationKey]
    /// Why each key that was left out was left out, for the log.
    public let skipped: [KeySetError.Skip]

    /// The key a token's `kid` names; without a `kid`, the only key there is.
    func key(for id: String?) -> VerificationKey? {
        guard let id else { return keys.count == 1 ? keys[0] : nil }
        return keys.first { $0.id.map { TokenVerifier.same($0, id) } ?? false }
    }

    public func contains(id: String) -> Bool { keys.contains { $0.id.map { TokenVerifier.same($0, id) } ?? false } }

    /// A key set from a JWKS document.
    public static func parse(_ bytes: [UInt8]) -> Result<KeySet, KeySetError> {
        guard let document = try? JSON.parse(bytes) else { return .failure(.notJSON) }
        guard case .object(let object) = document, case .array(let entries)? = object["keys"] else {
            return .failure(.noKeys)
        }
        var keys: [VerificationKey] = []
        var skipped: [KeySetError.Skip] = []
        for entry in entries {
            guard case .object(let jwk) = entry else {
                skipped.append(.malformed("a key is not an object"))
                continue
            }
            switch VerificationKey.make(jwk) {
            case .success(let key): keys.append(key)
            case .failure(let skip): skipped.append(skip)
            }
        }
        guard !keys.isEmpty else { return .failure(.noUsableKey(skipped)) }
        return .success(KeySet(keys: keys, skipped: skipped))
    }
}

/// Why a key set could not be used.
public enum KeySetError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case noKeys
    case noUsableKey([Skip])

    /// Why one key was left out.
    public enum Skip: Error, Sendable, Equatable, CustomStringConvertible {
        case notForSignatures
        case unsupportedKeyType
        case unsupportedCurve
        case unsupportedAlgorithm
        case malformed(String)

        public var description: String {
            switch self {
            case .notForSignatures: "not a signing key (`use` is not sig)"
            case .unsupportedKeyType: "a key type other than RSA or EC"
            case .unsupportedCurve: "an EC curve other than P-256"
            case .unsupportedAlgorithm: "an `alg` other than RS256, RS384, RS512 or ES256"
            case .malformed(let reason): reason
            }
        }
    }

    public var description: String {
        switch self {
        case .notJSON: "the key set is not JSON"
        case .noKeys: "the key set has no `keys` array"
        case .noUsableKey(let skipped):
            "the key set has no usable signing key"
                + (skipped.isEmpty ? "" : " (" + skipped.map(\.description).joined(separator: "; ") + ")")
        }
    }
}
