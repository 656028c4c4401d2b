/// Member names as UTF-8, for looking up tape member names without building a `String` per
/// member. Names compare by bytes (code points), as JSON Schema requires. Storage is manual
/// so the per-member lookup touches no reference counts; the owning keyword frees it.
///
/// Lists of 2 to `perfectLimit` names get a perfect hash, found when the schema is compiled:
/// each name has a slot of its own, so a member that is not the name after the previous
/// match is found with one hash and one comparison whatever order records list their members
/// in (records of real collections each have an order of their own, so a name scan or a
/// cache keyed by member order seldom hits). Lists without one (too long, or names alike in
/// length, first and last eight bytes) scan or probe.
struct NameList {
    let count: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    /// `starts[i]..<starts[i + 1]` are the bytes of name `i`.
    private let starts: UnsafeMutablePointer<Int>
    /// Open-addressed hash of name index + 1 (0 = empty), for lists too long to scan; size a power of two.
    private let slots: UnsafeMutablePointer<Int32>
    private let slotMask: Int
    /// The perfect table (one empty slot when there is none), `perfectSeed` and the shift that
    /// turns a mixed hash into a slot.
    private let perfectSlots: UnsafeMutablePointer<PerfectSlot>
    private let perfectSeed: UInt64
    private let perfectShift: UInt64
    /// True when `perfectSlots` holds every name.
    let isPerfect: Bool
    /// Slots of the perfect table (0 without one): fixed when the schema is compiled.
    let perfectCount: Int
    /// `isPerfect || count > scanLimit`, in one field for the per-member test.
    private let hashed: Bool

    /// Lists longer than this are looked up by hash instead of scanning.
    static let scanLimit = 8
    /// Longest list that gets a perfect hash (finding one by trying seeds gets slow past it).
    static let perfectLimit = 64

    /// A name's length and its first and last (up to) eight bytes: for names of at most 16
    /// bytes these are the whole name, so comparing them is comparing names.
    struct PerfectSlot {
        var head: UInt64
        var tail: UInt64
        /// -1 for an empty slot.
        var length: Int32
        var index: Int32
        static let empty = PerfectSlot(head: 0, tail: 0, length: -1, index: -1)
    }

    init(_ names: [String], perfect: Bool = true) {
        count = names.count
        let utf8 = names.map { Array($0.utf8) }
        let total = utf8.reduce(0) { $0 + $1.count }
        bytes = .allocate(capacity: max(1, total))
        starts = .allocate(capacity: count + 1)
        var offset = 0
        for (i, name) in utf8.enumerated() {
            starts[i] = offset
            (bytes + offset).initialize(from: name, count: name.count)
            offset += name.count
        }
        starts[count] = offset
        let size = count > Self.scanLimit ? 1 << (Int.bitWidth - (count * 2).leadingZeroBitCount) : 1
        slots = .allocate(capacity: size)
        slots.initialize(repeating: 0, count: size)
        slotMask = size - 1
        let found = perfect ? Self.findPerfect(Self.distinct(bytes, starts, count)) : nil
        if let found {
            perfectSlots = .allocate(capacity: found.slots.count)
            _ = UnsafeMutableBufferPointer(start: perfectSlots, count: found.slots.count).initialize(from: found.slots)
            perfectSeed = found.seed
            perfectShift = found.shift
            isPerfect = true
            perfectCount = found.slots.count
        } else {
            perfectSlots = .allocate(capacity: 1)
            perfectSlots.initialize(to: .empty)
            perfectSeed = 0
            perfectShift = 64
            isPerfect = false
            perfectCount = 0
        }
        hashed = isPerfect || count > Self.scanLimit
        if count > Self.scanLimit, !isPerfect {
            // Reversed, so that with duplicate names the first one wins (as in a scan).
            for i in (0..<count).reversed() {
                var slot = Self.hash(name(i)) & slotMask
                while slots[slot] != 0 && !Self.equal(name(Int(slots[slot]) - 1), name(i)) {
                    slot = (slot + 1) & slotMask
                }
                slots[slot] = Int32(i + 1)
            }
        }
    }

    func deallocate() {
        bytes.deallocate()
        starts.deallocate()
        slots.deallocate()
        perfectSlots.deallocate()
    }

    /// Each distinct name's first index with its key, when the list is in the perfect range.
    private static func distinct(
        _ bytes: UnsafeMutablePointer<UInt8>, _ starts: UnsafeMutablePointer<Int>, _ count: Int
    ) -> [PerfectSlot] {
        guard count >= 2, count <= perfectLimit else { return [] }
        var keys: [PerfectSlot] = []
        var seen: [[UInt8]] = []
        for i in 0..<count {
            let name = UnsafeBufferPointer(start: bytes + starts[i], count: starts[i + 1] - starts[i])
            // With duplicate names the first one wins (as in a scan).
            if seen.contains(where: { $0.elementsEqual(name) }) { continue }
            seen.append(Array(name))
            let (head, tail) = ends(name)
            keys.append(PerfectSlot(head: head, tail: tail, length: Int32(name.count), index: Int32(i)))
        }
        return keys
    }

    /// A seed and table size (a power of two, fewer than 32 slots a name) under which every key
    /// lands in a slot of its own; nil when none was found, or two keys are the same (long
    /// names alike at both ends), which no seed separates.
    private static func findPerfect(_ keys: [PerfectSlot]) -> (slots: [PerfectSlot], seed: UInt64, shift: UInt64)? {
        guard keys.count >= 2 else { return nil }
        for (i, a) in keys.enumerated() {
            for b in keys[(i + 1)...] where a.length == b.length && a.head == b.head && a.tail == b.tail { return nil }
        }
        var bits = UInt64(Int.bitWidth - (keys.count - 1).leadingZeroBitCount) + 1
        let maxBits = bits + 3
        var candidate: UInt64 = 0x5EED
        while bits <= maxBits {
            let shift = 64 - bits
            for _ in 0..<64 {
                candidate = candidate &* 0x5851_F42D_4C95_7F2D &+ 0x1405_7B7E_F767_814F
                var table = [PerfectSlot](repeating: .empty, count: 1 << bits)
                var clash = false
                for key in keys {
                    let slot = Int(truncatingIfNeeded: mix(key.head, key.tail, Int(key.length), candidate) >> shift)
                    if table[slot].length >= 0 {
                        clash = true
                        break
                    }
                    table[slot] = key
                }
                if !clash { return (table, candidate, shift) }
            }
            bits += 1
        }
        return nil
    }

    /// The first and last (up to) eight bytes of a name, with overlapping loads as in `equal`
    /// (no byte loop, no read past the name); zero-extended when shorter.
    @inline(__always) static func ends(_ name: UnsafeBufferPointer<UInt8>) -> (head: UInt64, tail: UInt64) {
        let n = name.count
        guard n > 0 else { return (0, 0) }
        let p = UnsafeRawPointer(name.baseAddress.unsafelyUnwrapped)
        if n >= 8 {
            return (p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        }
        if n >= 4 {
            return (
                UInt64(p.loadUnaligned(as: UInt32.self)),
                UInt64(p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            )
        }
        if n >= 2 {
            return (
                UInt64(p.loadUnaligned(as: UInt16.self)),
                UInt64(p.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self))
            )
        }
        return (UInt64(p.load(as: UInt8.self)), 0)
    }

    /// The perfect table's hash: the slot is its top bits.
    @inline(__always) static func mix(_ head: UInt64, _ tail: UInt64, _ length: Int, _ seed: UInt64) -> UInt64 {
        let h = (head ^ seed) &* 0x9E37_79B9_7F4A_7C15
        return (h ^ (tail &+ UInt64(truncatingIfNeeded: length))) &* 0xBF58_476D_1CE4_E5B9
    }

    /// Index of `key` in a perfect table: its one slot, compared by key and, past 16 bytes,
    /// by the bytes between the two ends.
    @inline(__always) private func perfectIndex(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let (head, tail) = Self.ends(key)
        let slot = perfectSlots[Int(truncatingIfNeeded: Self.mix(head, tail, key.count, perfectSeed) >> perfectShift)]
        guard Int(slot.length) == key.count, slot.head == head, slot.tail == tail else { return nil }
        let index = Int(slot.index)
        if key.count > 16, !Self.equal(name(index), key) { return nil }
        return index
    }

    @inline(__always) func name(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes + starts[i], count: starts[i &+ 1] &- starts[i])
    }

    /// Byte equality with overlapping word loads (no byte loop, no read past either buffer):
    /// member names are short, and comparing them is most of a properties check.
    @inline(__always) static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = a.count
        guard n == b.count else { return false }
        guard n > 0 else { return true }
        let pa = UnsafeRawPointer(a.baseAddress.unsafelyUnwrapped)
        let pb = UnsafeRawPointer(b.baseAddress.unsafelyUnwrapped)
        @inline(__always) func same<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> Bool {
            pa.loadUnaligned(fromByteOffset: offset, as: T.self) == pb.loadUnaligned(fromByteOffset: offset, as: T.self)
        }
        if n >= 8 {
            var i = 0
            while i + 8 < n {
                if !same(i, UInt64.self) { return false }
                i += 8
            }
            return same(n - 8, UInt64.self)
        }
        if n >= 4 { return same(0, UInt32.self) && same(n - 4, UInt32.self) }
        if n >= 2 { return same(0, UInt16.self) && same(n - 2, UInt16.self) }
        return same(0, UInt8.self)
    }

    /// The length and the first and last (up to) eight bytes, read with overlapping loads as in
    /// `equal` (no byte loop, no read past the name), mixed. Property names of one schema differ
    /// in those bytes; two that do not just share a probe sequence, and `equal` tells them apart.
    @inline(__always) static func hash(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        let n = name.count
        var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        if n > 0 {
            let p = UnsafeRawPointer(name.baseAddress.unsafelyUnwrapped)
            let first: UInt64
            let last: UInt64
            if n >= 8 {
                first = p.loadUnaligned(as: UInt64.self)
                last = p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            } else if n >= 4 {
                first = UInt64(p.loadUnaligned(as: UInt32.self))
                last = UInt64(p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            } else if n >= 2 {
                first = UInt64(p.loadUnaligned(as: UInt16.self))
                last = UInt64(p.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self))
            } else {
                first = UInt64(p.load(as: UInt8.self))
                last = 0
            }
            h ^= first &* 0xBF58_476D_1CE4_E5B9
            h = (h ^ (h >> 31)) &* 0x94D0_49BB_1331_11EB
            h ^= last
        }
        h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: h ^ (h >> 32))
    }

    /// Index of a name equal to `key`, trying first the name after the previous match: records
    /// in the schema's order have it there, and one well-predicted comparison is cheaper than
    /// hashing. Then the perfect table, or a probe or a scan (the first of equal names).
    @inline(__always)
    func index(of key: UnsafeBufferPointer<UInt8>, cursor: inout Int) -> Int? {
        if hashed {
            if cursor < count, Self.equal(name(cursor), key) {
                cursor += 1
                return cursor - 1
            }
            if isPerfect {
                guard let i = perfectIndex(key) else { return nil }
                cursor = i + 1
                return i
            }
            var slot = Self.hash(key) & slotMask
            while slots[slot] != 0 {
                let i = Int(slots[slot]) - 1
                if Self.equal(name(i), key) {
                    cursor = i + 1
                    return i
                }
                slot = (slot + 1) & slotMask
            }
            return nil
        }
        var i = cursor
        for _ in 0..<count {
            if i == count { i = 0 }
            if Self.equal(name(i), key) {
                cursor = i + 1
                return i
            }
            i += 1
        }
        return nil
    }

    @inline(__always) func contains(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        var cursor = 0
        return index(of: key, cursor: &cursor) != nil
    }
}
