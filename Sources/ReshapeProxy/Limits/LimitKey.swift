import ReshapeDigest

/// What a request is counted under in the table: a policy's name and the key's value, hashed
/// (SHA-256, its first 128 bits). The value may be a credential (an API key), so it is never
/// kept as sent; 128 bits make two values sharing one bucket out of reach.
package struct LimitKey: Hashable, Sendable {
    package let high: UInt64
    package let low: UInt64

    package init(policy: String, value: String) {
        var bytes = Array(policy.utf8)
        bytes.append(0)
        bytes += value.utf8
        let digest = SHA256Digest.hash(bytes)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(digest[index])
            low = low << 8 | UInt64(digest[index + 8])
        }
        self.high = high
        self.low = low
    }

    /// The hex text of the key, for the Redis key (never the value itself).
    package var hex: String {
        func hex(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return hex(high) + hex(low)
    }
}
