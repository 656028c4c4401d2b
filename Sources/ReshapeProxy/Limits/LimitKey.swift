import ReshapeDigest

/// What a request is counted under in this process's table: a policy's name and the key's
/// value, hashed. The value may be a credential (an API key), so it is never kept as sent. Each
/// 64-bit half is SipHash (Swift's `Hasher`, seeded per process) of a secret drawn when the
/// process starts, one per half, then the policy and the value: 128 bits that nobody outside the
/// process can aim at another value's bucket (the secrets keep that so even where the process
/// runs with `SWIFT_DETERMINISTIC_HASHING`), at a tenth of a SHA-256's cost (every request of a
/// limited route makes one per policy). Replicas that share their limits name the key in Redis
/// by `sharedName`, which every process computes alike.
package struct LimitKey: Hashable, Sendable {
    package let high: UInt64
    package let low: UInt64

    package init(policy: String, value: String) {
        high = Self.half(policy, value, secret: Self.secrets.high)
        low = Self.half(policy, value, secret: Self.secrets.low)
    }

    private static let secrets: (high: UInt64, low: UInt64) = {
        var random = SystemRandomNumberGenerator()
        return (random.next(), random.next())
    }()

    /// The policy's length first, so no policy and value pair reads as another.
    private static func half(_ policy: String, _ value: String, secret: UInt64) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(secret)
        hasher.combine(policy.utf8.count)
        feed(policy, to: &hasher)
        feed(value, to: &hasher)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The text's UTF-8 bytes as they are: values compare by bytes, not by canonical equivalence.
    private static func feed(_ text: String, to hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The key's name in Redis: SHA-256 of the policy's name, a zero byte and the value, its
    /// first 128 bits in hex. The same in every replica (and as earlier versions named it).
    package static func sharedName(policy: String, value: String) -> String {
        var bytes = Array(policy.utf8)
        bytes.append(0)
        bytes += value.utf8
        return String(SHA256Digest.hex(bytes).prefix(32))
    }
}
