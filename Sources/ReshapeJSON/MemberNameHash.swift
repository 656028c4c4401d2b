/// Random per process, so nobody can precompute names that collide.
let memberNameHashSeed = UInt64.random(in: .min ... .max)

/// A fast, non-cryptographic hash of a member name's UTF-8, used only to skip most string
/// comparisons in the duplicate-name check (equal hashes are always confirmed by `==`).
@inline(__always) func memberNameHash(_ key: inout String, seed: UInt64) -> UInt64 {
    key.withUTF8 { memberNameHash($0, seed: seed) }
}

/// The hash's start: the length through a seeded multiply. Xored in plainly, two lengths
/// differed by the same bits whatever the seed, so a first byte flipped by those bits and
/// trailing NULs made names of different lengths collide for every seed.
@inline(__always) func lengthMix(_ n: Int, seed: UInt64) -> UInt64 {
    let h = (seed ^ UInt64(truncatingIfNeeded: n)) &* 0x9E37_79B9_7F4A_7C15
    return h ^ (h >> 32)
}

/// `memberNameHash` of UTF-8 bytes.
@inline(__always) func memberNameHash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
    do {
        let n = bytes.count
        var h = lengthMix(n, seed: seed)
        guard let p = bytes.baseAddress else { return h }
        let raw = UnsafeRawPointer(p)
        var i = 0
        while i + 8 <= n {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(p[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }
}

/// `memberNameHash` of the `n` bytes at `p`, reading whole words: the caller guarantees
/// `n + 8` readable bytes at `p` (the name's bytes are followed by more of the document).
@inline(__always) func overreadingMemberNameHash(_ p: UnsafePointer<UInt8>, count n: Int, seed: UInt64) -> UInt64 {
    let raw = UnsafeRawPointer(p)
    var h = lengthMix(n, seed: seed)
    var at = 0
    while at + 8 <= n {
        h = (h ^ raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 29
        at += 8
    }
    let left = n - at
    let tail =
        left == 0 ? 0 : raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) & (UInt64.max >> (64 - 8 * UInt64(left)))
    h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
    return h ^ (h >> 31)
}
