/// Recently seen short member names. A keyed collection repeats the same few record field
/// names thousands of times; a hit returns the `String` already built (skipping UTF-8
/// validation and construction) and its duplicate-check hash. Only names of at most 16
/// ASCII bytes without escapes are cached, compared as two machine words.
struct MemberNameCache {
    struct Entry {
        var low: UInt64
        var high: UInt64
        var length: Int  // -1: empty
        var hash: UInt64
        var name: String
    }

    static let size = 256
    private var entries: UnsafeMutablePointer<Entry>? = nil

    /// The slot for a name's bytes (as two little-endian words, zero-padded).
    @inline(__always) static func slot(low: UInt64, high: UInt64, length: Int) -> Int {
        let mixed = (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: length)
        return Int(truncatingIfNeeded: mixed >> 56)
    }

    @inline(__always) mutating func lookup(low: UInt64, high: UInt64, length: Int) -> (name: String, hash: UInt64)? {
        guard let entries else { return nil }
        let entry = entries + MemberNameCache.slot(low: low, high: high, length: length)
        guard entry.pointee.length == length, entry.pointee.low == low, entry.pointee.high == high else { return nil }
        return (entry.pointee.name, entry.pointee.hash)
    }

    mutating func store(low: UInt64, high: UInt64, length: Int, name: String, hash: UInt64) {
        if entries == nil {
            let fresh = UnsafeMutablePointer<Entry>.allocate(capacity: MemberNameCache.size)
            fresh.initialize(repeating: Entry(low: 0, high: 0, length: -1, hash: 0, name: ""), count: MemberNameCache.size)
            entries = fresh
        }
        entries![MemberNameCache.slot(low: low, high: high, length: length)] =
            Entry(low: low, high: high, length: length, hash: hash, name: name)
    }

    func release() {
        guard let entries else { return }
        entries.deinitialize(count: MemberNameCache.size)
        entries.deallocate()
    }
}
