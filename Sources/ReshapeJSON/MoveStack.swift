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
