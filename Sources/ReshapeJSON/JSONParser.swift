// A strict RFC 8259 parser over raw bytes.
//
// Rejects what lenient parsers let through: trailing commas, comments, NaN/Infinity, leading
// zeros, control characters in strings, invalid UTF-8, lone surrogate escapes, trailing data,
// and duplicate member names (an object with two `"id"` members means different things to
// different consumers, so Reshape refuses to guess). Nesting is bounded by
// `JSONParseOptions.maxDepth`, so hostile input cannot overflow the stack.

extension JSON {
    /// Parses one JSON document from UTF-8 bytes.
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONParseError) -> JSON {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSON in
            try parse(buffer, options: options)
        }
    }

    /// Parses one JSON document from any collection of UTF-8 bytes (an `ArraySlice`, a
    /// `String.UTF8View`, ...); contiguous storage is read in place, anything else copied once.
    public static func parse<Bytes: Collection>(_ bytes: Bytes, options: JSONParseOptions = .init()) throws(JSONParseError) -> JSON
    where Bytes.Element == UInt8 {
        let result = bytes.withContiguousStorageIfAvailable { buffer -> Result<JSON, JSONParseError> in
            do throws(JSONParseError) {
                return .success(try parse(buffer, options: options))
            } catch {
                return .failure(error)
            }
        }
        if let result { return try result.get() }
        return try parse(Array(bytes), options: options)
    }

    /// Parses one JSON document from UTF-8 bytes in place, without copying them.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>, options: JSONParseOptions = .init()) throws(JSONParseError) -> JSON {
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            throw JSONParseError(message: "unexpected end of input, expected a value", offset: 0, line: 1, column: 1)
        }
        var parser = JSONParser(buffer, base: base, maxDepth: options.maxDepth)
        defer { parser.releaseStacks() }
        return try parser.parseDocument()
    }

    /// Parses one JSON document from text.
    public init(parsing text: String, options: JSONParseOptions = .init()) throws(JSONParseError) {
        var text = text
        let result: Result<JSON, JSONParseError> = text.withUTF8 { buffer in
            do throws(JSONParseError) {
                return .success(try JSON.parse(buffer, options: options))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }
}

/// How a large object checks member names: a hash table, or a set after a collision flood.
struct LargeObjectCheck {
    var table: MemberNameTable
    var names: Set<String>? = nil
}

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let base: UnsafePointer<UInt8>
    let end: Int
    var position = 0
    var depth = 0
    let maxDepth: Int
    /// Reused for strings with escapes, so each one does not allocate a buffer of its own.
    var scratch: [UInt8] = []

    /// Children of every open container, moved into exact-size arrays when it closes.
    var memberStack = MoveStack<JSONMember>()
    var elementStack = MoveStack<JSON>()
    /// `memberNameHash` of each member on `memberStack`, so the duplicate check compares
    /// integers and touches a string only on a hash match.
    var memberHashes = MoveStack<UInt64>()
    let hashSeed = memberNameHashSeed
    var nameCache = MemberNameCache()
    /// Small documents skip the string caches: setting them up would cost more than they save.
    let usesCaches: Bool
    static let cacheThreshold = 4096
    var valueCache = MemberNameCache()

    /// Objects with more members than this check duplicates with a hash table instead of a scan.
    private static let linearDuplicateCheckLimit = 16

    init(_ bytes: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.base = base
        self.end = bytes.count
        self.maxDepth = maxDepth
        usesCaches = bytes.count >= JSONParser.cacheThreshold
    }

    /// Frees the child stacks; call once when done, whether parsing succeeded or not.
    func releaseStacks() {
        memberStack.release()
        elementStack.release()
        memberHashes.release()
        nameCache.release()
        valueCache.release()
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            throw error(at: 0, "byte order mark is not allowed (RFC 8259 section 8.1)")
        }
        let value = try parseValue()
        skipWhitespace()
        if position < end {
            throw error(at: position, "unexpected \(describe(position)) after the JSON value")
        }
        return value
    }

    // MARK: - Values

    mutating func parseValue() throws(JSONParseError) -> JSON {
        skipWhitespace()
        guard position < end else { throw error(at: position, "unexpected end of input, expected a value") }
        switch base[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseStringValue())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(at: position, "unexpected \(describe(position)), expected a value")
        }
    }

    mutating func parseObject() throws(JSONParseError) -> JSON {
        try enterContainer()
        position += 1  // {
        skipWhitespace()
        if position < end, base[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(JSONObject())
        }
        let mark = memberStack.count
        // Hashes have their own mark: the parent's current name is hashed before its value
        // (this object) is parsed, so the two stacks differ by one while a nested object is open.
        let hashMark = memberHashes.count
        var large: LargeObjectCheck? = nil
        var seenHashBits: UInt64 = 0
        while true {
            skipWhitespace()
            guard position < end else { throw error(at: position, "unexpected end of input, expected a member name") }
            guard base[position] == UInt8(ascii: "\"") else {
                throw error(at: position, "unexpected \(describe(position)), expected a member name in double quotes")
            }
            let keyStart = position
            let (key, hash) = try parseMemberName()
            try checkDuplicate(key, hash: hash, since: mark, hashesSince: hashMark, seenHashBits: &seenHashBits, large: &large, at: keyStart)
            skipWhitespace()
            guard position < end, base[position] == UInt8(ascii: ":") else {
                throw error(at: position, "\(position < end ? "unexpected \(describe(position))" : "unexpected end of input"), expected ':' after a member name")
            }
            position += 1
            let value = try parseValue()
            memberStack.push(JSONMember(key: key, value: value))
            skipWhitespace()
            guard position < end else { throw error(at: position, "unexpected end of input, expected ',' or '}'") }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                if position < end, base[position] == UInt8(ascii: "}") {
                    throw error(at: position, "trailing comma before '}'")
                }
                continue
            }
            if byte == UInt8(ascii: "}") { break }
            throw error(at: position - 1, "unexpected \(describe(position - 1)), expected ',' or '}'")
        }
        depth -= 1
        memberHashes.truncate(to: hashMark)
        return .object(JSONObject(memberStack.popArray(from: mark)))
    }

    /// Throws at the second occurrence of a member name. Small objects compare hashes
    /// linearly; large ones (a keyed collection) switch to a hash table, keeping the check O(n).
    mutating func checkDuplicate(_ key: String, hash: UInt64, since mark: Int, hashesSince hashMark: Int, seenHashBits: inout UInt64,
                                 large: inout LargeObjectCheck?,
                                 at keyStart: Int) throws(JSONParseError) {
        let count = memberStack.count - mark
        memberHashes.push(hash)
        let members = memberStack.base + mark
        if count < JSONParser.linearDuplicateCheckLimit {
            // One bit per member (chosen by 6 bits of its hash): a clear bit proves the name is new.
            let bit: UInt64 = 1 << (hash >> 58)
            defer { seenHashBits |= bit }
            if seenHashBits & bit == 0 { return }
            let hashes = memberHashes.base + hashMark
            for i in 0..<count where hashes[i] == hash && members[i].key == key {
                throw error(at: keyStart, "duplicate member name \"\(key)\"")
            }
            return
        }
        if large == nil {
            var table = MemberNameTable(expectedCount: count * 4)
            for i in 0..<count {
                _ = table.insert(hash: memberHashes.base[hashMark + i], index: i) { _ in false }
            }
            large = LargeObjectCheck(table: table)
        }
        let isDuplicate: Bool
        if large!.names == nil {
            isDuplicate = !large!.table.insert(hash: hash, index: count) { members[$0].key == key }
            if large!.table.probes > 64 * (count + 1) {
                // Abnormally many collisions: crafted names. SipHash with a random seed resists that.
                var names = Set<String>(minimumCapacity: count * 2)
                for i in 0..<count { names.insert(members[i].key) }
                if !isDuplicate { names.insert(key) }
                large!.names = names
            }
        } else {
            isDuplicate = !large!.names!.insert(key).inserted
        }
        if isDuplicate { throw error(at: keyStart, "duplicate member name \"\(key)\"") }
    }

    /// A plain string of at most 16 ASCII bytes at `position` (its opening quote), as two
    /// zero-padded words and its length; nil when it is longer, has an escape or non-ASCII,
    /// or too few bytes remain to load both words.
    @inline(__always) func shortPlainString() -> (low: UInt64, high: UInt64, length: Int)? {
        guard usesCaches, position + 17 <= end else { return nil }
        let raw = UnsafeRawPointer(base + position + 1)
        let first = raw.loadUnaligned(as: UInt64.self)
        // The lowest flagged byte is exact (SWAR false positives only occur above a true hit).
        let firstMask = JSONParser.attentionMask(first)
        let length: Int
        var low = first
        var high: UInt64 = 0
        if firstMask != 0 {
            length = firstMask.trailingZeroBitCount >> 3
            low = length == 0 ? 0 : first & (UInt64.max >> (64 - 8 * length))
        } else {
            let second = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let secondMask = JSONParser.attentionMask(second)
            guard secondMask != 0 else { return nil }
            length = 8 + secondMask.trailingZeroBitCount >> 3
            high = length == 8 ? 0 : second & (UInt64.max >> (128 - 8 * length))
        }
        guard base[position + 1 + length] == UInt8(ascii: "\"") else { return nil }
        return (low, high, length)
    }

    /// Parses a member name at its opening quote, returning it with its duplicate-check hash.
    /// Short plain names come from `nameCache` when seen before.
    @inline(__always) mutating func parseMemberName() throws(JSONParseError) -> (String, UInt64) {
        guard let (low, high, length) = shortPlainString() else { return try parseUncachedName() }
        if let hit = nameCache.lookup(low: low, high: high, length: length) {
            position += length + 2
            return hit
        }
        var key = String(decoding: UnsafeBufferPointer(start: base + position + 1, count: length), as: UTF8.self)
        let hash = memberNameHash(&key, seed: hashSeed)
        nameCache.store(low: low, high: high, length: length, name: key, hash: hash)
        position += length + 2
        return (key, hash)
    }

    /// Parses a string value at its opening quote. Short plain values repeat in records
    /// (cities, tags, statuses), so they come from `valueCache` when seen before.
    @inline(__always) mutating func parseStringValue() throws(JSONParseError) -> String {
        guard let (low, high, length) = shortPlainString() else { return try parseString() }
        if let hit = valueCache.lookup(low: low, high: high, length: length) {
            position += length + 2
            return hit.name
        }
        let value = String(decoding: UnsafeBufferPointer(start: base + position + 1, count: length), as: UTF8.self)
        valueCache.store(low: low, high: high, length: length, name: value, hash: 0)
        position += length + 2
        return value
    }

    mutating func parseUncachedName() throws(JSONParseError) -> (String, UInt64) {
        var key = try parseString()
        return (key, memberNameHash(&key, seed: hashSeed))
    }

    mutating func parseArray() throws(JSONParseError) -> JSON {
        try enterContainer()
        position += 1  // [
        skipWhitespace()
        if position < end, base[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array([])
        }
        let mark = elementStack.count
        while true {
            elementStack.push(try parseValue())
            skipWhitespace()
            guard position < end else { throw error(at: position, "unexpected end of input, expected ',' or ']'") }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                if position < end, base[position] == UInt8(ascii: "]") {
                    throw error(at: position, "trailing comma before ']'")
                }
                continue
            }
            if byte == UInt8(ascii: "]") { break }
            throw error(at: position - 1, "unexpected \(describe(position - 1)), expected ',' or ']'")
        }
        depth -= 1
        return .array(elementStack.popArray(from: mark))
    }

    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            throw error(at: position, "nesting deeper than \(maxDepth) levels")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        for i in 0..<count {
            guard position + i < end, base[position + i] == expected[i] else {
                throw error(at: position, "invalid literal, expected '\(literal)'")
            }
        }
        position += count
    }

    // MARK: - Numbers

    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = try scanNumber()
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
        return JSONNumber(uncheckedText: text)
    }

    /// Moves past a number at `position`, checking its grammar; returns where it started.
    mutating func scanNumber() throws(JSONParseError) -> Int {
        let start = position
        if base[position] == UInt8(ascii: "-") { position += 1 }
        guard position < end, isDigit(base[position]) else {
            throw error(at: position, "expected a digit after '-'")
        }
        if base[position] == UInt8(ascii: "0") {
            position += 1
            if position < end, isDigit(base[position]) {
                throw error(at: position - 1, "leading zeros are not allowed in numbers")
            }
        } else {
            while position < end, isDigit(base[position]) { position += 1 }
        }
        if position < end, base[position] == UInt8(ascii: ".") {
            position += 1
            guard position < end, isDigit(base[position]) else {
                throw error(at: position, "expected a digit after the decimal point")
            }
            while position < end, isDigit(base[position]) { position += 1 }
        }
        if position < end, base[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < end, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < end, isDigit(base[position]) else {
                throw error(at: position, "expected a digit in the exponent")
            }
            while position < end, isDigit(base[position]) { position += 1 }
        }
        return start
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: - Helpers

    @inline(__always) mutating func skipWhitespace() {
        while position < end {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    func error(at offset: Int, _ message: String) -> JSONParseError {
        JSONParseError.at(offset, in: bytes, message)
    }

    func describe(_ offset: Int) -> String {
        "character '\(printable(base[offset]))'"
    }

    func printable(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        return "0x\(hex(UInt32(byte)))"
    }

    func controlCharacterMessage(_ byte: UInt8) -> String {
        "control character 0x\(hex(UInt32(byte))) must be escaped in a string"
    }

    func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, (value > 0xFF ? 4 : 2) - digits.count)) + digits
    }
}
