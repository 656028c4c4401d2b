/// Member names as UTF-8, for looking up tape member names without building a `String` per
/// member. Names compare by bytes (code points), as JSON Schema requires. Storage is manual
/// so the per-member lookup touches no reference counts; the owning keyword frees it.
struct NameList {
    let count: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    /// `starts[i]..<starts[i + 1]` are the bytes of name `i`.
    private let starts: UnsafeMutablePointer<Int>
    /// Open-addressed hash of name index + 1 (0 = empty), for lists too long to scan; size a power of two.
    private let slots: UnsafeMutablePointer<Int32>
    private let slotMask: Int

    /// Lists longer than this are looked up by hash instead of scanning.
    static let scanLimit = 8

    init(_ names: [String]) {
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
        guard count > Self.scanLimit else { return }
        // Reversed, so that with duplicate names the first one wins (as in a scan).
        for i in (0..<count).reversed() {
            var slot = Self.hash(name(i)) & slotMask
            while slots[slot] != 0 && !Self.equal(name(Int(slots[slot]) - 1), name(i)) { slot = (slot + 1) & slotMask }
            slots[slot] = Int32(i + 1)
        }
    }

    func deallocate() {
        bytes.deallocate()
        starts.deallocate()
        slots.deallocate()
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

    /// Index of `key`, trying first the name after the previous match: records usually list
    /// their members in the schema's order, so most lookups succeed at the first comparison.
    @inline(__always)
    func index(of key: UnsafeBufferPointer<UInt8>, cursor: inout Int) -> Int? {
        if count > Self.scanLimit {
            if cursor < count, Self.equal(name(cursor), key) {
                cursor += 1
                return cursor - 1
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
