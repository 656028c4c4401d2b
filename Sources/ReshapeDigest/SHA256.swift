import CCrypto

/// SHA-256 from OpenSSL's libcrypto. Cache keys are digests of everything that selects an
/// answer, credentials included: a collision would serve one client another's answer, so the
/// hash must be one nobody can collide on purpose, and the same in every replica (for a cache
/// shared through Redis), which rules out a per-process keyed hash.
public enum SHA256Digest {
    public static let byteCount = 32

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// Lower-case hex of the digest.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(byteCount * 2)
        for byte in hash(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
