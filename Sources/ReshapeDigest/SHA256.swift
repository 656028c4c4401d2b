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
                if let algorithm = sha256Algorithm {
                    let ok = EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, algorithm, nil)
                    precondition(ok == 1, "libcrypto failed to compute SHA-256")
                } else {
                    _ = SHA256(input.baseAddress, input.count, output.baseAddress)
                }
            }
        }
        return digest
    }

    /// Lower-case hex of the digest, written straight into the string's storage.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digest = hash(bytes)
        return String(unsafeUninitializedCapacity: byteCount * 2) { text in
            let digits: StaticString = "0123456789abcdef"
            let table = digits.utf8Start
            for (index, byte) in digest.enumerated() {
                text[2 * index] = table[Int(byte >> 4)]
                text[2 * index + 1] = table[Int(byte & 0x0F)]
            }
            return byteCount * 2
        }
    }
}

/// SHA-256 fetched from libcrypto's providers once per process (a global is initialized once,
/// thread-safely; an EVP_MD is safe to share between threads): OpenSSL 3's one-shot `SHA256()` fetches it again on every call, which costs
/// more than hashing a cache key. Nil if the fetch failed; `SHA256()` is used then.
nonisolated(unsafe) private let sha256Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)
