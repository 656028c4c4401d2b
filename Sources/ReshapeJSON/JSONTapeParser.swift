#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Builds a `JSONTape`: the same strict grammar, limits and error messages as `JSON.parse`
// (the scanning helpers are `JSONScanner`'s), but each value becomes one fixed-size node
// instead of a Swift value. Member names are compared as decoded UTF-8 bytes (code points),
// as RFC 8259 and JSON Schema define equality.

extension JSONTape {
    /// Parses and indexes one JSON document. Throws exactly where `JSON.parse` would.
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONParseError) -> JSONTape {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<(UnsafeMutablePointer<TapeNode>, Int), JSONParseError> in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                return .failure(JSONParseError(message: "unexpected end of input, expected a value", offset: 0, line: 1, column: 1))
            }
            if buffer.count > JSONTape.maxBytes {
                return .failure(JSONParseError(message: "document larger than \(JSONTape.maxBytes) bytes", offset: 0, line: 1, column: 1))
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
        let (nodes, count) = try result.get()
        return JSONTape(bytes: bytes, nodes: nodes, count: count)
    }
}

struct TapeBuilder {
    var scanner: JSONScanner
    private var nodes: UnsafeMutablePointer<TapeNode>
    private var count = 0
    private var capacity: Int
    /// Bumped by anything the canonical writer would spell differently (whitespace, a
    /// non-canonical escape); a container whose span saw no bump can be copied byte for byte.
    private var irregularities = 0
    /// Name hash and name node of each member of the objects being parsed.
    private var nameHashes = MoveStack<UInt64>()
    private var nameNodes = MoveStack<Int>()
    private static let linearDuplicateCheckLimit = 16

    init(_ scanner: JSONScanner) {
        self.scanner = scanner
        // About one node per 10 bytes in typical records; growing is a realloc, which for a
        // large block remaps pages instead of copying them.
        capacity = max(64, scanner.end / 8)
        nodes = TapeBuilder.reallocate(nil, capacity: capacity)
    }

    /// Hands over the nodes; the builder must not be used afterwards.
    mutating func finish() -> (UnsafeMutablePointer<TapeNode>, Int) {
        release()
        return (nodes, count)
    }

    /// Frees everything after an error.
    mutating func discard() {
        release()
        free(nodes)
    }

    private func release() {
        nameHashes.release()
        nameNodes.release()
    }

    mutating func parseDocument() throws(JSONParseError) {
        let base = scanner.base
        if scanner.end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            throw scanner.error(at: 0, "byte order mark is not allowed (RFC 8259 section 8.1)")
        }
        try parseValue()
        scanner.skipWhitespace()
        if scanner.position < scanner.end {
            throw scanner.error(at: scanner.position, "unexpected \(scanner.describe(scanner.position)) after the JSON value")
        }
    }

    // MARK: - Nodes

    @inline(__always) private mutating func append(_ kind: JSONTape.Kind, offset: Int, length: Int, flags: UInt32 = 0) -> Int {
        if count == capacity { grow() }
        nodes[count] = TapeNode(offset: UInt32(truncatingIfNeeded: offset), length: UInt32(truncatingIfNeeded: length),
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
    @inline(__always) private mutating func close(_ node: Int, children: Int, irregularitiesAtOpen: Int) throws(JSONParseError) {
        guard children <= TapeNode.maxCount else {
            throw scanner.error(at: Int(nodes[node].offset), "more than \(TapeNode.maxCount) members or elements in one container")
        }
        let start = Int(nodes[node].offset)
        nodes[node].length = UInt32(truncatingIfNeeded: scanner.position - start)
        nodes[node].next = UInt32(truncatingIfNeeded: count)
        nodes[node].tag |= UInt32(children) << TapeNode.countShift
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
        guard position < scanner.end else { throw scanner.error(at: position, "unexpected end of input, expected a value") }
        switch scanner.base[position] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "t"): try scanner.expectLiteral("true"); _ = append(.true, offset: position, length: 4)
        case UInt8(ascii: "f"): try scanner.expectLiteral("false"); _ = append(.false, offset: position, length: 5)
        case UInt8(ascii: "n"): try scanner.expectLiteral("null"); _ = append(.null, offset: position, length: 4)
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
        let mark = nameNodes.count
        var large = LargeObjectNames()
        var members = 0
        while true {
            skipSpace()
            guard scanner.position < scanner.end else {
                throw scanner.error(at: scanner.position, "unexpected end of input, expected a member name")
            }
            guard scanner.base[scanner.position] == UInt8(ascii: "\"") else {
                throw scanner.error(at: scanner.position, "unexpected \(scanner.describe(scanner.position)), expected a member name in double quotes")
            }
            let name = try parseString()
            try checkDuplicate(name, since: mark, large: &large)
            skipSpace()
            guard scanner.position < scanner.end, scanner.base[scanner.position] == UInt8(ascii: ":") else {
                let found = scanner.position < scanner.end ? "unexpected \(scanner.describe(scanner.position))" : "unexpected end of input"
                throw scanner.error(at: scanner.position, "\(found), expected ':' after a member name")
            }
            scanner.position += 1
            try parseValue()
            members += 1
            skipSpace()
            guard scanner.position < scanner.end else { throw scanner.error(at: scanner.position, "unexpected end of input, expected ',' or '}'") }
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
            throw scanner.error(at: scanner.position - 1, "unexpected \(scanner.describe(scanner.position - 1)), expected ',' or '}'")
        }
        scanner.depth -= 1
        nameNodes.truncate(to: mark)
        nameHashes.truncate(to: mark)
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
            guard scanner.position < scanner.end else { throw scanner.error(at: scanner.position, "unexpected end of input, expected ',' or ']'") }
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
            throw scanner.error(at: scanner.position - 1, "unexpected \(scanner.describe(scanner.position - 1)), expected ',' or ']'")
        }
        scanner.depth -= 1
        try close(node, children: elements, irregularitiesAtOpen: irregularitiesAtOpen)
    }

    // MARK: - Strings

    /// Checks a string at its opening quote and appends its node.
    private mutating func parseString() throws(JSONParseError) -> Int {
        let start = scanner.position
        scanner.position += 1
        while true {
            scanner.skipPlainBytes()
            guard scanner.position < scanner.end else { throw scanner.error(at: start, "unterminated string") }
            let byte = scanner.base[scanner.position]
            if byte == UInt8(ascii: "\"") {
                scanner.position += 1
                return append(.string, offset: start, length: scanner.position - start)
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 { break }
            if byte < 0x20 { throw scanner.error(at: scanner.position, scanner.controlCharacterMessage(byte)) }
            scanner.position += 1
        }
        // Escapes or non-ASCII: checked like `JSONScanner.parseStringSlowPath`, without building the value.
        var escaped = false
        var canonical = true
        while true {
            scanner.skipPlainBytes()
            guard scanner.position < scanner.end else { throw scanner.error(at: start, "unterminated string") }
            let byte = scanner.base[scanner.position]
            switch byte {
            case UInt8(ascii: "\""):
                scanner.position += 1
                let flags = (escaped ? TapeNode.escapedFlag : 0) | (canonical ? 0 : TapeNode.nonCanonicalFlag)
                return append(.string, offset: start, length: scanner.position - start, flags: flags)
            case UInt8(ascii: "\\"):
                escaped = true
                if !isCanonicalEscape(at: scanner.position) {
                    irregularities += 1
                    canonical = false
                }
                scanner.scratch.removeAll(keepingCapacity: true)
                try scanner.parseEscape()
            case 0..<0x20:
                throw scanner.error(at: scanner.position, scanner.controlCharacterMessage(byte))
            case 0x80...:
                scanner.position += try scanner.validateUTF8Sequence()
            default:
                scanner.position += 1
            }
        }
    }

    /// True when the escape at `offset` is the one the canonical writer would write:
    /// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\u00xx` (lowercase) for other control characters.
    private func isCanonicalEscape(at offset: Int) -> Bool {
        let base = scanner.base
        guard offset + 1 < scanner.end else { return false }
        switch base[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        case UInt8(ascii: "u"):
            guard offset + 5 < scanner.end, base[offset + 2] == UInt8(ascii: "0"), base[offset + 3] == UInt8(ascii: "0") else { return false }
            let high = base[offset + 4]
            let low = base[offset + 5]
            guard high == UInt8(ascii: "0") || high == UInt8(ascii: "1") else { return false }
            let lowValue: UInt8
            switch low {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): lowValue = low - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): lowValue = low - UInt8(ascii: "a") + 10
            default: return false
            }
            let scalar = (high - UInt8(ascii: "0")) << 4 | lowValue
            return ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(scalar)
        default:
            return false
        }
    }

    // MARK: - Duplicate member names

    /// Throws at the second occurrence of a member name, comparing decoded UTF-8.
    private mutating func checkDuplicate(_ name: Int, since mark: Int, large: inout LargeObjectNames) throws(JSONParseError) {
        let names = NameComparison(nodes: nodes, base: scanner.base, end: scanner.end)
        let seed = memberNameHashSeed
        let fingerprint = names.fingerprint(name, seed: seed)
        let index = nameNodes.count - mark
        nameNodes.push(name)
        nameHashes.push(fingerprint)
        let fingerprints = nameHashes.base + mark
        let earlier = nameNodes.base + mark
        if large.ascending && index > 0 {
            large.ascending = names.precedes(earlier[index - 1], name)
        }
        if index < TapeBuilder.linearDuplicateCheckLimit {
            // A record's few names: comparing one word with each earlier one is cheaper than hashing.
            for i in 0..<index where fingerprints[i] == fingerprint && names.same(earlier[i], name, fingerprint: fingerprint) {
                throw duplicate(name)
            }
            return
        }
        // Names in strictly increasing order cannot repeat: a keyed collection sorted by key
        // (Firebase sends them so) needs no table and none of its cache misses.
        if large.ascending { return }
        let mixed = NameComparison.mix(fingerprint, seed: seed)
        if large.table == nil {
            var table = MemberNameTable(expectedCount: index * 4)
            for i in 0..<index { _ = table.insert(hash: NameComparison.mix(fingerprints[i], seed: seed), index: i) { _ in false } }
            large.table = table
        }
        // The mix is seeded per process, so crafted collisions cannot be precomputed; the
        // table still confirms every tag match by comparing fingerprints and names.
        let isNew = large.table!.insert(hash: mixed, index: index) {
            fingerprints[$0] == fingerprint && names.same(earlier[$0], name, fingerprint: fingerprint)
        }
        if !isNew { throw duplicate(name) }
    }

    private func duplicate(_ name: Int) -> JSONParseError {
        let offset = Int(nodes[name].offset)
        var copy = scanner
        copy.position = offset
        let text = (try? copy.parseString()) ?? ""
        return scanner.error(at: offset, "duplicate member name \"\(text)\"")
    }
}

/// How an object with many members checks its names: while they arrive in increasing
/// order, by comparing each with the previous one; from the first that does not, by a table.
struct LargeObjectNames {
    var ascending = true
    var table: MemberNameTable? = nil
}

/// Member-name hashing and equality over the nodes built so far (small, so closures copy it cheaply).
private struct NameComparison {
    let nodes: UnsafeMutablePointer<TapeNode>
    let base: UnsafePointer<UInt8>
    let end: Int

    /// Calls `body` with a name node's decoded UTF-8.
    @inline(__always) func withName<R>(_ node: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let n = nodes[node]
        if n.tag & TapeNode.escapedFlag == 0 {
            return body(UnsafeBufferPointer(start: base + Int(n.offset) + 1, count: Int(n.length) - 2))
        }
        var decoder = JSONScanner(UnsafeBufferPointer(start: base, count: end), base: base, maxDepth: 1)
        decoder.position = Int(n.offset)
        var text = (try? decoder.parseString()) ?? ""
        return text.withUTF8 { body($0) }
    }

    /// A name's fingerprint: a name of at most 7 bytes is its bytes and length, so equal
    /// fingerprints mean equal names; a longer one is its hash with the top bit set, and
    /// equal fingerprints are confirmed by comparing the names. Decoded bytes either way.
    @inline(__always) func fingerprint(_ node: Int, seed: UInt64) -> UInt64 {
        let n = nodes[node]
        let length = Int(n.length) - 2
        let start = Int(n.offset) + 1
        if n.tag & TapeNode.escapedFlag == 0 && start + length + 8 <= end {
            if length <= 7 {
                let word = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
                return (length == 0 ? 0 : word & (UInt64.max >> (64 - 8 * UInt64(length)))) | UInt64(length) << 56
            }
            return overreadingMemberNameHash(base + start, count: length, seed: seed) | 1 << 63
        }
        return withName(node) { bytes in
            guard bytes.count <= 7 else { return memberNameHash(bytes, seed: seed) | 1 << 63 }
            var word: UInt64 = 0
            for (i, byte) in bytes.enumerated() { word |= UInt64(byte) << (8 * UInt64(i)) }
            return word | UInt64(bytes.count) << 56
        }
    }

    /// Spreads a fingerprint's bits (short names' fingerprints are mostly ASCII) for the
    /// large-object table.
    @inline(__always) static func mix(_ fingerprint: UInt64, seed: UInt64) -> UInt64 {
        var h = (fingerprint ^ seed) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }

    /// True when plain name `a` orders strictly before plain name `b` by bytes (code points).
    /// False for escaped names: their bytes are not their value, so no order is claimed.
    @inline(__always) func precedes(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        guard (na.tag | nb.tag) & TapeNode.escapedFlag == 0 else { return false }
        let lengthA = Int(na.length) - 2
        let lengthB = Int(nb.length) - 2
        let order = memcmp(base + Int(na.offset) + 1, base + Int(nb.offset) + 1, min(lengthA, lengthB))
        return order < 0 || (order == 0 && lengthA < lengthB)
    }

    /// True when names `a` and `b`, whose fingerprints are both `fingerprint`, are the same.
    @inline(__always) func same(_ a: Int, _ b: Int, fingerprint: UInt64) -> Bool {
        fingerprint >> 63 == 0 || same(a, b)
    }

    @inline(__always) func same(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        if (na.tag | nb.tag) & TapeNode.escapedFlag == 0 {
            return na.length == nb.length && memcmpEqual(base + Int(na.offset), base + Int(nb.offset), Int(na.length))
        }
        return withName(a) { first in withName(b) { second in first.elementsEqual(second) } }
    }
}
