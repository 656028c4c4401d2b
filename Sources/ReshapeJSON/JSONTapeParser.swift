#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The JSON parser: builds a `JSONTape`, one fixed-size node per value, from the tokens
// `JSONScanner` reads. It is the only one; `JSON.parse` materializes its tape, so a tree and
// a tape accept the same documents and fail with the same message and position. Strings are
// in JSONTapeParser+Strings.swift, the duplicate-name check in JSONTapeParser+MemberNames.swift.
// Documents are first tried by the two-stage parser (JSONTapeParser+Index.swift); this one
// runs when that one gives up, so it alone reports errors.

extension JSONTape {
    /// Parses and indexes one JSON document (`JSON.parse` builds its tree from this tape).
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONParseError) -> JSONTape {
        let result = bytes.withUnsafeBufferPointer {
            buffer -> Result<(UnsafeMutablePointer<TapeNode>, Int, Int), JSONParseError> in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                return .failure(
                    JSONParseError(message: "unexpected end of input, expected a value", offset: 0, line: 1, column: 1))
            }
            if buffer.count > JSONTape.maxBytes {
                return .failure(
                    JSONParseError(
                        message: "document larger than \(JSONTape.maxBytes) bytes", offset: 0, line: 1, column: 1))
            }
            if options.path == .portableIndex || (options.path == .automatic && IndexedTapeBuilder.hasSIMD),
                let indexed = IndexedTapeBuilder.parse(buffer, base: base, options: options)
            {
                return .success(indexed)
            }
            var builder = TapeBuilder(JSONScanner(buffer, base: base, maxDepth: options.maxDepth))
            do throws(JSONParseError) {
                try builder.parseDocument()
                return .success(builder.finish())
            } catch {
                builder.discard()
                return .failure(error)
            }
        }
        let (nodes, count, capacity) = try result.get()
        return JSONTape(bytes: bytes, nodes: nodes, count: count, capacity: capacity)
    }
}

struct TapeBuilder {
    var scanner: JSONScanner
    private(set) var nodes: UnsafeMutablePointer<TapeNode>
    private var count = 0
    private var capacity: Int
    /// Bumped by anything the canonical writer would spell differently (whitespace, a
    /// non-canonical escape); a container whose span saw no bump can be copied byte for byte.
    var irregularities = 0
    /// The duplicate-name check (JSONTapeParser+MemberNames.swift): names met so far by
    /// depth, with the hash seed read once per parse (a global is read through `swift_once`),
    /// the last object stamp handed out, and the names of large ordered objects that skip the set.
    var memberNames: MemberNameSet
    var objectStamps: UInt32 = 0
    var deferredNames = MoveStack<Int>()

    init(_ scanner: JSONScanner) {
        self.scanner = scanner
        memberNames = MemberNameSet(seed: memberNameHashSeed)
        // Room for a node per 8 bytes of text, more than typical records use, so most documents
        // never grow; growing is a realloc, which for a large block remaps pages instead of copying.
        capacity = max(64, scanner.end / 8)
        if let kept = TapeNodeBlocks.take(capacity: capacity) {
            (nodes, capacity) = kept
        } else {
            nodes = TapeBuilder.reallocate(nil, capacity: capacity)
        }
    }

    /// Hands over the nodes and their capacity; the builder must not be used afterwards.
    mutating func finish() -> (UnsafeMutablePointer<TapeNode>, Int, Int) {
        release()
        return (nodes, count, capacity)
    }

    /// Frees everything after an error.
    mutating func discard() {
        release()
        TapeNodeBlocks.give(nodes, capacity: capacity)
    }

    private func release() {
        memberNames.release()
        deferredNames.release()
    }

    mutating func parseDocument() throws(JSONParseError) {
        let base = scanner.base
        if scanner.end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            throw scanner.error(at: 0, "byte order mark is not allowed (RFC 8259 section 8.1)")
        }
        try parseValue()
        scanner.skipWhitespace()
        if scanner.position < scanner.end {
            throw scanner.error(
                at: scanner.position, "unexpected \(scanner.describe(scanner.position)) after the JSON value")
        }
    }

    // MARK: - Nodes

    @inline(__always) mutating func append(_ kind: JSONTape.Kind, offset: Int, length: Int, flags: UInt32 = 0) -> Int {
        if count == capacity { grow() }
        nodes[count] = TapeNode(
            offset: UInt32(truncatingIfNeeded: offset), length: UInt32(truncatingIfNeeded: length),
            next: UInt32(truncatingIfNeeded: count + 1), tag: UInt32(kind.rawValue) | flags)
        count += 1
        return count - 1
    }

    private mutating func grow() {
        capacity *= 2
        nodes = TapeBuilder.reallocate(nodes, capacity: capacity)
    }

    /// Nodes are plain data, so `realloc` may move them.
    static func reallocate(_ nodes: UnsafeMutablePointer<TapeNode>?, capacity: Int) -> UnsafeMutablePointer<TapeNode> {
        guard let memory = realloc(nodes, capacity * MemoryLayout<TapeNode>.stride) else { fatalError("out of memory") }
        return memory.assumingMemoryBound(to: TapeNode.self)
    }

    /// Fills in a container's node once its closing bracket is consumed.
    @inline(__always) mutating func close(_ node: Int, children: Int, irregularitiesAtOpen: Int)
        throws(JSONParseError)
    {
        guard children <= TapeNode.maxCount else {
            throw scanner.error(
                at: Int(nodes[node].offset), "more than \(TapeNode.maxCount) members or elements in one container")
        }
        let start = Int(nodes[node].offset)
        nodes[node].length = UInt32(truncatingIfNeeded: scanner.position - start)
        nodes[node].next = UInt32(truncatingIfNeeded: count)
        nodes[node].tag |=
            UInt32(children) << TapeNode.countShift
            | (irregularities != irregularitiesAtOpen ? TapeNode.nonCanonicalFlag : 0)
    }

    @inline(__always) private mutating func skipSpace() {
        let before = scanner.position
        scanner.skipWhitespace()
        if scanner.position != before { irregularities += 1 }
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONParseError) {
        skipSpace()
        let position = scanner.position
        guard position < scanner.end else {
            throw scanner.error(at: position, "unexpected end of input, expected a value")
        }
        switch scanner.base[position] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "t"):
            try scanner.expectLiteral("true")
            _ = append(.true, offset: position, length: 4)
        case UInt8(ascii: "f"):
            try scanner.expectLiteral("false")
            _ = append(.false, offset: position, length: 5)
        case UInt8(ascii: "n"):
            try scanner.expectLiteral("null")
            _ = append(.null, offset: position, length: 4)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = try scanner.scanNumber()
            _ = append(.number, offset: start, length: scanner.position - start)
        default: throw scanner.error(at: position, "unexpected \(scanner.describe(position)), expected a value")
        }
    }

    private mutating func parseObject() throws(JSONParseError) {
        try scanner.enterContainer()
        let node = append(.object, offset: scanner.position, length: 0)
        let irregularitiesAtOpen = irregularities
        scanner.position += 1  // {
        skipSpace()
        if scanner.position < scanner.end, scanner.base[scanner.position] == UInt8(ascii: "}") {
            scanner.position += 1
            scanner.depth -= 1
            try close(node, children: 0, irregularitiesAtOpen: irregularitiesAtOpen)
            return
        }
        var names = openNames(node)
        var members = 0
        while true {
            skipSpace()
            guard scanner.position < scanner.end else {
                throw scanner.error(at: scanner.position, "unexpected end of input, expected a member name")
            }
            guard scanner.base[scanner.position] == UInt8(ascii: "\"") else {
                throw scanner.error(
                    at: scanner.position,
                    "unexpected \(scanner.describe(scanner.position)), expected a member name in double quotes")
            }
            let name = try parseString()
            try checkDuplicate(name, index: members, in: &names)
            skipSpace()
            guard scanner.position < scanner.end, scanner.base[scanner.position] == UInt8(ascii: ":") else {
                let found =
                    scanner.position < scanner.end
                    ? "unexpected \(scanner.describe(scanner.position))" : "unexpected end of input"
                throw scanner.error(at: scanner.position, "\(found), expected ':' after a member name")
            }
            scanner.position += 1
            try parseValue()
            members += 1
            skipSpace()
            guard scanner.position < scanner.end else {
                throw scanner.error(at: scanner.position, "unexpected end of input, expected ',' or '}'")
            }
            let byte = scanner.base[scanner.position]
            scanner.position += 1
            if byte == UInt8(ascii: ",") {
                skipSpace()
                if scanner.position < scanner.end, scanner.base[scanner.position] == UInt8(ascii: "}") {
                    throw scanner.error(at: scanner.position, "trailing comma before '}'")
                }
                continue
            }
            if byte == UInt8(ascii: "}") { break }
            throw scanner.error(
                at: scanner.position - 1, "unexpected \(scanner.describe(scanner.position - 1)), expected ',' or '}'")
        }
        scanner.depth -= 1
        closeNames(names)
        try close(node, children: members, irregularitiesAtOpen: irregularitiesAtOpen)
    }

    private mutating func parseArray() throws(JSONParseError) {
        try scanner.enterContainer()
        let node = append(.array, offset: scanner.position, length: 0)
        let irregularitiesAtOpen = irregularities
        scanner.position += 1  // [
        skipSpace()
        if scanner.position < scanner.end, scanner.base[scanner.position] == UInt8(ascii: "]") {
            scanner.position += 1
            scanner.depth -= 1
            try close(node, children: 0, irregularitiesAtOpen: irregularitiesAtOpen)
            return
        }
        var elements = 0
        while true {
            try parseValue()
            elements += 1
            skipSpace()
            guard scanner.position < scanner.end else {
                throw scanner.error(at: scanner.position, "unexpected end of input, expected ',' or ']'")
            }
            let byte = scanner.base[scanner.position]
            scanner.position += 1
            if byte == UInt8(ascii: ",") {
                skipSpace()
                if scanner.position < scanner.end, scanner.base[scanner.position] == UInt8(ascii: "]") {
                    throw scanner.error(at: scanner.position, "trailing comma before ']'")
                }
                continue
            }
            if byte == UInt8(ascii: "]") { break }
            throw scanner.error(
                at: scanner.position - 1, "unexpected \(scanner.describe(scanner.position - 1)), expected ',' or ']'")
        }
        scanner.depth -= 1
        try close(node, children: elements, irregularitiesAtOpen: irregularitiesAtOpen)
    }
}
