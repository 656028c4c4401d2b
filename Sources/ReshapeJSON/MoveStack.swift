/// A growable stack in manually managed memory. The parser pushes a container's children
/// here and, when the container closes, moves them (no retain/release, no regrowth) into one
/// exactly sized array. Memory is taken at the first push, so a parser made only to decode
/// one escaped string (the tape does that) allocates nothing. Owners must call `release()`
/// exactly once.
struct MoveStack<Element> {
    /// A placeholder that is never read or freed while `capacity` is 0.
    private(set) var base = UnsafeMutablePointer<Element>(bitPattern: MemoryLayout<Element>.alignment)!
    private(set) var count = 0
    private var capacity = 0

    init() {}

    @inline(__always) mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        let newCapacity = max(256, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if capacity > 0 {
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
        }
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
        guard capacity > 0 else { return }
        base.deinitialize(count: count)
        base.deallocate()
    }
}
