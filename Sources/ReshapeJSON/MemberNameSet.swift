#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The duplicate-name check's memory, kept for a whole parse: every (nesting depth, member
/// name) met so far, each stamped with the last object that had it. Only one object is open
/// at a depth at a time, so a name whose entry already carries the open object's stamp is a
/// repeat in that object. Sibling records (the same few names at the same depth, in any
/// order) find their names' entries and only restamp them: a hash, a probe and a store per
/// name, with nothing pushed or cleared per object.
///
/// Open addressing with linear probing; a slot holds a name's fingerprint, depth and stamp
/// (24 bytes), and a parallel array the node of its first occurrence, read only to confirm a
/// long name (a name of at most 15 bytes is its own fingerprint). The slot is chosen by a hash seeded per
/// process and per depth, so crafted collisions cannot be precomputed.
struct MemberNameSet {
    struct Slot {
        var fingerprint: NameFingerprint
        /// 0 marks an empty slot (objects are at depth 1 or deeper).
        var depth: UInt32
        var stamp: UInt32
    }

    private(set) var slots = UnsafeMutablePointer<Slot>(bitPattern: MemoryLayout<Slot>.alignment)!
    private var nodes = UnsafeMutablePointer<UInt32>(bitPattern: MemoryLayout<UInt32>.alignment)!
    /// Slots - 1; 0 until the first object with members.
    private var mask = 0
    private(set) var count = 0
    let seed: UInt64

    init(seed: UInt64) { self.seed = seed }

    /// Takes memory for about `expected` names, at the first object with members.
    @inline(__always) mutating func reserve(expected: Int) {
        if mask == 0 { allocate(expected: expected) }
    }

    /// What an object's names at `depth` are hashed with.
    @inline(__always) func salt(depth: Int) -> UInt64 {
        seed ^ UInt64(truncatingIfNeeded: depth) &* 0xD6E8_FEB8_6659_FD93
    }

    /// Both words go through a seeded multiply before they are mixed: a word xored in after
    /// it would let names whose bytes differ in chosen bits share a slot whatever the seed.
    @inline(__always) private static func home(_ fingerprint: NameFingerprint, salt: UInt64, mask: Int) -> Int {
        var h = (fingerprint.low ^ salt) &* 0x9E37_79B9_7F4A_7C15
        h ^= (fingerprint.high ^ salt) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= h &>> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: h &>> 32) & mask
    }

    /// Stamps the entry of `fingerprint` at `depth` (adding it, for `node`, when there is none)
    /// with `stamp`; false when it already had that stamp: the name repeats in the open object.
    /// `isSame(entryNode)` confirms that a long name's entry is the same name. `reserve` first.
    @inline(__always) mutating func stamp(
        _ fingerprint: NameFingerprint, salt: UInt64, depth: UInt32, stamp: UInt32, node: Int, isSame: (Int) -> Bool
    ) -> Bool {
        let slots = self.slots
        let mask = self.mask
        var i = MemberNameSet.home(fingerprint, salt: salt, mask: mask)
        while true {
            let slot = slots + i
            if slot.pointee.depth == 0 { break }
            if slot.pointee.fingerprint == fingerprint && slot.pointee.depth == depth
                && (fingerprint.isExact || isSame(Int(nodes[i])))
            {
                if slot.pointee.stamp == stamp { return false }
                slot.pointee.stamp = stamp
                return true
            }
            i = (i &+ 1) & mask
        }
        slots[i] = Slot(fingerprint: fingerprint, depth: depth, stamp: stamp)
        nodes[i] = UInt32(truncatingIfNeeded: node)
        count &+= 1
        if count &* 2 > mask { compactOrGrow() }
        return true
    }

    private mutating func allocate(expected: Int) {
        var size = 64
        while size < expected * 2 { size <<= 1 }
        mask = size - 1
        slots = calloc(size, MemoryLayout<Slot>.stride)!.assumingMemoryBound(to: Slot.self)
        nodes = malloc(size * MemoryLayout<UInt32>.stride)!.assumingMemoryBound(to: UInt32.self)
    }

    /// The set is half full: the entries of objects that have closed go, and the rest are
    /// placed again, in twice the slots if they still fill more than a quarter. Stamps grow
    /// through the parse, so at each depth the highest stamp is the last object opened there,
    /// the only one there that may still be open; an entry with an older stamp can never be
    /// found repeated again (a later object re-adds its name). Without this, every distinct
    /// name of the document would stay until the end: tens of bytes per input byte for records
    /// of unique keys. With it the set holds about the names of the last object at each depth,
    /// and each rebuild follows at least a quarter of the slots' worth of new names.
    private mutating func compactOrGrow() {
        var latest: [UInt32] = []
        for j in 0...mask where slots[j].depth != 0 {
            let depth = Int(slots[j].depth)
            if depth >= latest.count { latest += repeatElement(0, count: depth + 1 - latest.count) }
            latest[depth] = max(latest[depth], slots[j].stamp)
        }
        var live = 0
        for j in 0...mask where slots[j].depth != 0 && slots[j].stamp == latest[Int(slots[j].depth)] { live += 1 }
        rebuild(size: live &* 4 > mask ? (mask + 1) * 2 : mask + 1) { $0.stamp == latest[Int($0.depth)] }
    }

    /// Places the entries `keep` accepts again, in `size` slots (a power of two).
    private mutating func rebuild(size: Int, keep: (Slot) -> Bool) {
        let oldSlots = slots
        let oldNodes = nodes
        let oldSize = mask + 1
        allocate(expected: size / 2)
        count = 0
        for j in 0..<oldSize where oldSlots[j].depth != 0 && keep(oldSlots[j]) {
            let entry = oldSlots[j]
            count += 1
            var i = MemberNameSet.home(entry.fingerprint, salt: salt(depth: Int(entry.depth)), mask: mask)
            while slots[i].depth != 0 { i = (i + 1) & mask }
            slots[i] = entry
            nodes[i] = oldNodes[j]
        }
        free(oldSlots)
        free(oldNodes)
    }

    /// Slots held now (0 before the first object with members).
    var capacity: Int { mask == 0 ? 0 : mask + 1 }

    /// Frees the memory; the set must not be used afterwards.
    func release() {
        guard mask != 0 else { return }
        free(slots)
        free(nodes)
    }
}
