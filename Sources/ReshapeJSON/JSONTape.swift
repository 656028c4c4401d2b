#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A parsed document that keeps its bytes: one flat array of fixed-size nodes indexing the
// source, instead of a tree of Swift values. Parsing writes a node per value and allocates
// nothing else, so a large upstream body is checked (with the same strictness and errors as
// `JSON.parse`) at a fraction of the cost of building a tree. Steps that only read (validate,
// select, copy through) work on the nodes; a value is built as `JSON` only when a step must
// change it (`materialize`), and untouched values are written out by copying their bytes.

/// One value of a `JSONTape`: where its text is, how far to skip past it, and what it is.
@usableFromInline struct TapeNode {
    /// Byte offset of the value's first byte (the quote of a string, the bracket of a container).
    @usableFromInline var offset: UInt32
    /// Byte length of the value's text (with quotes or brackets).
    @usableFromInline var length: UInt32
    /// Index of the node after this value and everything inside it.
    @usableFromInline var next: UInt32
    /// Kind (3 bits), flags (2 bits) and, for containers, member or element count (27 bits).
    @usableFromInline var tag: UInt32

    @usableFromInline static let escapedFlag: UInt32 = 1 << 3
    @usableFromInline static let nonCanonicalFlag: UInt32 = 1 << 4
    @usableFromInline static let countShift: UInt32 = 5
    static let maxCount = Int(UInt32.max >> countShift)
}

/// An immutable parsed JSON document: the source bytes and an index of every value in them.
/// Values are addressed by node index; the root is node 0. An object's node is followed by
/// its members as (name string, value) node pairs; an array's by its elements.
public final class JSONTape: @unchecked Sendable {
    /// What a node is.
    public enum Kind: UInt8, Sendable {
        case null, `false`, `true`, number, string, array, object
    }

    /// The document text, exactly as parsed.
    public let bytes: [UInt8]
    @usableFromInline let nodes: UnsafeMutablePointer<TapeNode>
    /// Number of nodes (values and member names).
    public let nodeCount: Int

    /// Largest document a tape indexes (offsets are 32-bit).
    public static let maxBytes = Int(UInt32.max) - 1

    /// Nodes allocated, for handing the block to the next parse (`TapeNodeBlocks`).
    private let nodeCapacity: Int

    /// Bytes of memory the tape's node block holds (allocated nodes × their size), apart from
    /// `bytes`: what a cache of tapes counts against its bound, as a small-valued document has
    /// far more node bytes than text bytes.
    public var nodeBytes: Int { nodeCapacity * MemoryLayout<TapeNode>.stride }

    /// Bytes of the nodes the document needs (its nodes × their size), whichever block they
    /// were written into: what parsing it takes, for an estimate of the next such document (a
    /// block kept for reuse may be larger, and is held whether or not a parse uses it).
    public var usedNodeBytes: Int { nodeCount * MemoryLayout<TapeNode>.stride }

    init(bytes: [UInt8], nodes: UnsafeMutablePointer<TapeNode>, count: Int, capacity: Int) {
        self.bytes = bytes
        self.nodes = nodes
        self.nodeCount = count
        self.nodeCapacity = capacity
    }

    deinit { TapeNodeBlocks.give(nodes, capacity: nodeCapacity) }

    /// The root value's node.
    public var root: Int { 0 }

    @inlinable @inline(__always) public func kind(_ node: Int) -> Kind {
        Kind(rawValue: UInt8(truncatingIfNeeded: nodes[node].tag & 7)).unsafelyUnwrapped
    }

    /// The node after `node` and everything inside it (its next sibling, when there is one).
    @inlinable @inline(__always) public func next(_ node: Int) -> Int { Int(nodes[node].next) }

    /// Members of an object or elements of an array; 0 for other values.
    @inlinable @inline(__always) public func count(_ node: Int) -> Int { Int(nodes[node].tag >> TapeNode.countShift) }

    /// Byte range of the value's text in `bytes`.
    @inlinable @inline(__always) public func textRange(_ node: Int) -> Range<Int> {
        let n = nodes[node]
        return Int(n.offset)..<Int(n.offset) + Int(n.length)
    }

    /// True when a string node's text has a backslash escape, so its bytes are not its value.
    @inlinable @inline(__always) public func isEscaped(_ node: Int) -> Bool {
        nodes[node].tag & TapeNode.escapedFlag != 0
    }

    /// True when the value's text is exactly what the canonical compact writer would produce
    /// for it (no whitespace inside, only the writer's escapes), so it can be copied as is.
    @inlinable @inline(__always) public func isCanonical(_ node: Int) -> Bool {
        nodes[node].tag & TapeNode.nonCanonicalFlag == 0
    }

    /// Calls `body` with each member of an object: its name node and its value node.
    @inlinable @inline(__always) public func forEachMember(
        _ object: Int, _ body: (_ name: Int, _ value: Int) throws -> Void
    ) rethrows {
        var i = object + 1
        let end = next(object)
        while i < end {
            try body(i, i + 1)
            i = next(i + 1)
        }
    }

    /// Calls `body` with each element of an array, with its position.
    @inlinable @inline(__always) public func forEachElement(
        _ array: Int, _ body: (_ index: Int, _ element: Int) throws -> Void
    ) rethrows {
        var i = array + 1
        var position = 0
        let end = next(array)
        while i < end {
            try body(position, i)
            position += 1
            i = next(i)
        }
    }

    /// The value node of the member of `object` named `name` (UTF-8), or nil.
    public func member(_ object: Int, named name: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = object + 1
        let end = next(object)
        while i < end {
            if stringEquals(i, name) { return i + 1 }
            i = next(i + 1)
        }
        return nil
    }

    /// Calls `body` with the UTF-8 of a string node's value (its escapes decoded).
    @inline(__always) public func withString<R>(_ node: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows
        -> R
    {
        let n = nodes[node]
        if n.tag & TapeNode.escapedFlag != 0 {
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(n.length)) { buffer in
                let count = decodeEscaped(node, into: buffer.baseAddress!)
                return try body(UnsafeBufferPointer(start: buffer.baseAddress, count: count))
            }
        }
        return try bytes.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[Int(n.offset) + 1..<Int(n.offset + n.length) - 1]))
        }
    }

    /// True when a string node's value is exactly the UTF-8 bytes `other` (code point equality).
    @inline(__always) public func stringEquals(_ node: Int, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = nodes[node]
        if n.tag & TapeNode.escapedFlag == 0 {
            guard Int(n.length) - 2 == other.count else { return false }
            if other.isEmpty { return true }
            return bytes.withUnsafeBufferPointer { all in
                memcmpEqual(all.baseAddress! + Int(n.offset) + 1, other.baseAddress!, other.count)
            }
        }
        return withString(node) { $0.elementsEqual(other) }
    }

    /// A string node's value.
    public func string(_ node: Int) -> String {
        let n = nodes[node]
        if n.tag & TapeNode.escapedFlag != 0 {
            return String(unsafeUninitializedCapacity: Int(n.length)) { decodeEscaped(node, into: $0.baseAddress!) }
        }
        return bytes.withUnsafeBufferPointer { all in
            String(
                decoding: UnsafeBufferPointer(rebasing: all[Int(n.offset) + 1..<Int(n.offset + n.length) - 1]),
                as: UTF8.self)
        }
    }

    /// A number node's exact text.
    public func number(_ node: Int) -> JSONNumber {
        let n = nodes[node]
        return bytes.withUnsafeBufferPointer { all in
            JSONNumber(
                uncheckedText: String(
                    decoding: UnsafeBufferPointer(rebasing: all[Int(n.offset)..<Int(n.offset + n.length)]),
                    as: UTF8.self))
        }
    }

    /// Number of Unicode scalars in a string node's value (what JSON Schema's `minLength` counts).
    public func scalarCount(_ node: Int) -> Int {
        withString(node) { utf8 in
            var count = 0
            for byte in utf8 where byte & 0xC0 != 0x80 { count += 1 }
            return count
        }
    }
}

@inline(__always) func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var i = 0
    let rawA = UnsafeRawPointer(a)
    let rawB = UnsafeRawPointer(b)
    while i + 8 <= count {
        if rawA.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            != rawB.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
            return false
        }
        i += 8
    }
    while i < count {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}
