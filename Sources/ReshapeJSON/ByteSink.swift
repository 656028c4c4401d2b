#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An append-only byte buffer in manually managed memory: the writer's hot loop checks
/// capacity once per value instead of paying `Array.append`'s uniqueness and bounds checks
/// per byte. Owners call `release()` exactly once.
///
/// It can also write into memory it borrows (an array's uninitialized storage), so a large
/// output is written where it will stay instead of being copied there afterwards; when the
/// borrowed room runs out it moves to memory of its own and stops borrowing.
struct ByteSink {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// True while `base` is borrowed: never reallocated nor freed here.
    private(set) var isBorrowing = false

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        guard let memory = malloc(self.capacity) else { fatalError("out of memory") }
        base = memory.assumingMemoryBound(to: UInt8.self)
    }

    /// Writes into `buffer` until it is full.
    init(borrowing buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count > 0, "a borrowed buffer must have room")
        base = buffer.baseAddress!
        capacity = buffer.count
        isBorrowing = true
    }

    /// Makes room for `extra` more bytes.
    @inline(__always) mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        if isBorrowing {
            guard let memory = malloc(newCapacity) else { fatalError("out of memory") }
            let owned = memory.assumingMemoryBound(to: UInt8.self)
            owned.update(from: base, count: count)
            base = owned
            isBorrowing = false
        } else {
            // realloc can grow in place, and for large blocks remaps pages instead of copying them.
            guard let memory = realloc(base, newCapacity) else { fatalError("out of memory") }
            base = memory.assumingMemoryBound(to: UInt8.self)
        }
        capacity = newCapacity
    }

    /// Appends one byte; the caller has reserved room.
    @inline(__always) mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// Appends bytes; the caller has reserved room.
    @inline(__always) mutating func appendReserved(_ bytes: UnsafePointer<UInt8>, count n: Int) {
        (base + count).update(from: bytes, count: n)
        count += n
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        appendReserved(byte)
    }

    @inline(__always) mutating func append(_ bytes: UnsafePointer<UInt8>, count n: Int) {
        reserve(n)
        appendReserved(bytes, count: n)
    }

    /// Appends the written bytes to `array`.
    func copy(into array: inout [UInt8]) {
        array.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    func release() { if !isBorrowing { free(base) } }
}
