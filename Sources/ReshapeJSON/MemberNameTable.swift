/// The duplicate-name check for large objects (a Firebase collection has thousands of
/// members): an open-addressing table of member-name hashes. Unlike `Set<String>`, it stores
/// each hash, so probing and growing never rehash or compare strings; a string comparison
/// happens only when two full 64-bit hashes match.
struct MemberNameTable {
    private var hashes: [UInt64]  // 0 marks an empty slot; stored hashes are made nonzero
    private var indices: [Int32]
    private var count = 0
    private var mask: Int
    /// Probe steps taken so far; the caller abandons the table when this grows abnormally
    /// (a flood of crafted colliding names) and falls back to `Set<String>`.
    private(set) var probes = 0

    init(expectedCount: Int) {
        var size = 64
        while size < expectedCount * 2 { size <<= 1 }
        hashes = [UInt64](repeating: 0, count: size)
        indices = [Int32](repeating: 0, count: size)
        mask = size - 1
    }

    /// Records member `index` under `hash`; false when an earlier member has the same name,
    /// as decided by `isSameName(earlierIndex)`.
    mutating func insert(hash rawHash: UInt64, index: Int, isSameName: (Int) -> Bool) -> Bool {
        let hash = rawHash | 1
        var slot = Int(truncatingIfNeeded: hash >> 7) & mask
        while hashes[slot] != 0 {
            if hashes[slot] == hash && isSameName(Int(indices[slot])) { return false }
            slot = (slot + 1) & mask
            probes += 1
        }
        hashes[slot] = hash
        indices[slot] = Int32(truncatingIfNeeded: index)
        count += 1
        if count * 2 > hashes.count { grow() }
        return true
    }

    private mutating func grow() {
        let oldHashes = hashes
        let oldIndices = indices
        hashes = [UInt64](repeating: 0, count: oldHashes.count * 2)
        indices = [Int32](repeating: 0, count: oldHashes.count * 2)
        mask = hashes.count - 1
        for i in 0..<oldHashes.count where oldHashes[i] != 0 {
            var slot = Int(truncatingIfNeeded: oldHashes[i] >> 7) & mask
            while hashes[slot] != 0 { slot = (slot + 1) & mask }
            hashes[slot] = oldHashes[i]
            indices[slot] = oldIndices[i]
        }
    }
}
