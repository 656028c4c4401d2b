/// A growable stack in manually managed memory. The parser pushes a container's children
/// here and, when the container closes, moves them (no retain/release, no regrowth) into one
/// exactly sized array. Owners must call `release()` exactly once.
struct MoveStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    @inline(__always) mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Moves the elements from `mark` to the top into a new array and pops them.
    mutating func popArray(from mark: Int) -> [Element] {
        let n = count - mark
        if n == 0 { return [] }
        let source = base + mark
        let result = [Element](unsafeUninitializedCapacity: n) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: source, count: n)
            initialized = n
        }
        count = mark
        return result
    }

    /// Drops the elements from `mark` to the top.
    mutating func truncate(to mark: Int) {
        (base + mark).deinitialize(count: count - mark)
        count = mark
    }

    /// Destroys what is left (after an error) and frees the memory.
    func release() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// Random per process, so nobody can precompute names that collide.
let memberNameHashSeed = UInt64.random(in: .min ... .max)

/// A fast, non-cryptographic hash of a member name's UTF-8, used only to skip most string
/// comparisons in the duplicate-name check (equal hashes are always confirmed by `==`).
@inline(__always) func memberNameHash(_ key: inout String, seed: UInt64) -> UInt64 {
    key.withUTF8 { bytes -> UInt64 in
        let n = bytes.count
        var h: UInt64 = seed ^ UInt64(truncatingIfNeeded: n)
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
