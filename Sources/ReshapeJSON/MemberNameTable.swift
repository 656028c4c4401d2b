/// The duplicate-name check for large objects (a Firebase collection has thousands of
/// members): an open-addressing table of member-name hashes. Unlike `Set<String>`, it stores
/// each hash, so probing and growing never rehash or compare strings; a string comparison
/// happens only when two 32-bit hash tags match. One word per slot (tag << 32 | index + 1)
/// keeps the table small enough to stay in cache.
struct MemberNameTable {
    private var slots: [UInt64]  // 0 marks an empty slot
    private var count = 0
    private var mask: Int
    /// Probe steps taken so far; the caller abandons the table when this grows abnormally
    /// (a flood of crafted colliding names) and falls back to `Set<String>`.
    private(set) var probes = 0

    init(expectedCount: Int) {
        var size = 64
        while size < expectedCount * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// Records member `index` under `hash`; false when an earlier member has the same name,
    /// as decided by `isSameName(earlierIndex)`.
    mutating func insert(hash: UInt64, index: Int, isSameName: (Int) -> Bool) -> Bool {
        let tag = hash >> 32
        var slot = Int(truncatingIfNeeded: tag) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 { break }
            if stored >> 32 == tag && isSameName(Int(truncatingIfNeeded: stored & 0xFFFF_FFFF) - 1) { return false }
            slot = (slot + 1) & mask
            probes += 1
        }
        slots[slot] = tag << 32 | UInt64(truncatingIfNeeded: index + 1)
        count += 1
        if count * 2 > slots.count { grow() }
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for stored in old where stored != 0 {
            var slot = Int(truncatingIfNeeded: stored >> 32) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = stored
        }
    }
}
