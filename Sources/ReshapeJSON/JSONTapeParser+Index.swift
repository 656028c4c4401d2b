import CJSONIndex

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The parser's second stage: builds the same tape as `TapeBuilder.parseDocument` by walking
// the positions stage 1 (Sources/CJSONIndex) found, instead of every byte. A string with no
// escape ends at the next position and needs no per-byte work (stage 1 has checked UTF-8 and
// control characters for the whole text); whitespace shows as a gap between positions.
// Anything unexpected gives up and `JSONTape.parse` runs the scalar parser, which then
// reports the error exactly as it always has (docs/benchmarks.md, "The parser's two stages").

struct IndexedTapeBuilder {
    var builder: TapeBuilder
    /// Stage 1's positions, then `end` as a sentinel.
    let index: UnsafeMutablePointer<UInt32>
    var cursor = 0
    let base: UnsafePointer<UInt8>
    let end: Int

    /// Thrown to give up; never reaches a caller (the scalar parser reports the real error).
    static let giveUp = JSONParseError(message: "", offset: 0, line: 0, column: 0)

    /// The tape's nodes, or nil when the document is not valid JSON or stage 2 gave up.
    static func parse(_ buffer: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, options: JSONParseOptions)
        -> (UnsafeMutablePointer<TapeNode>, Int)?
    {
        let count = buffer.count
        // A byte order mark is an error the scalar parser words.
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { return nil }
        let index = UnsafeMutablePointer<UInt32>.allocate(capacity: count + 1)
        defer { index.deallocate() }
        var flags: UInt32 = 0
        let path = options.path == .portableIndex ? JSON_INDEX_PATH_PORTABLE : JSON_INDEX_PATH_AUTO
        let found = json_index_build(base, count, index, &flags, path)
        guard flags == 0 else { return nil }
        index[found] = UInt32(truncatingIfNeeded: count)
        var walker = IndexedTapeBuilder(
            builder: TapeBuilder(JSONScanner(buffer, base: base, maxDepth: options.maxDepth)), index: index, base: base,
            end: count)
        do throws(JSONParseError) {
            try walker.parseDocument()
            return walker.builder.finish()
        } catch {
            walker.builder.discard()
            return nil
        }
    }

    mutating func parseDocument() throws(JSONParseError) {
        try parseValue()
        // Only whitespace after the root value: nothing but the sentinel is left.
        guard Int(index[cursor]) == end else { throw IndexedTapeBuilder.giveUp }
    }

    /// Moves to the token at the cursor. A gap before it is whitespace: stage 1 indexes the
    /// first byte of anything else, and `scalarEnd` checks the bytes after a scalar.
    @inline(__always) private mutating func token() -> Int {
        let position = Int(index[cursor])
        if position != builder.scanner.position {
            builder.irregularities += 1
            builder.scanner.position = position
        }
        return position
    }

    /// Steps past a scalar's position; what follows the scalar up to the next one must be whitespace.
    @inline(__always) private mutating func scalarEnd() throws(JSONParseError) {
        cursor += 1
        let next = Int(index[cursor])
        var i = builder.scanner.position
        guard i <= next else { throw IndexedTapeBuilder.giveUp }
        while i < next {
            switch base[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: throw IndexedTapeBuilder.giveUp
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) {
        let position = token()
        guard position < end else { throw IndexedTapeBuilder.giveUp }
        switch base[position] {
        case UInt8(ascii: "{"): try parseObject(position)
        case UInt8(ascii: "["): try parseArray(position)
        case UInt8(ascii: "\""): _ = try parseString(position)
        case UInt8(ascii: "t"):
            try builder.scanner.expectLiteral("true")
            _ = builder.append(.true, offset: position, length: 4)
            try scalarEnd()
        case UInt8(ascii: "f"):
            try builder.scanner.expectLiteral("false")
            _ = builder.append(.false, offset: position, length: 5)
            try scalarEnd()
        case UInt8(ascii: "n"):
            try builder.scanner.expectLiteral("null")
            _ = builder.append(.null, offset: position, length: 4)
            try scalarEnd()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try builder.scanner.scanNumber()
            _ = builder.append(.number, offset: position, length: builder.scanner.position - position)
            try scalarEnd()
        default: throw IndexedTapeBuilder.giveUp
        }
    }

    /// A string at its opening quote's position (the cursor's).
    @inline(__always) private mutating func parseString(_ start: Int) throws(JSONParseError) -> Int {
        // Inside a string stage 1 indexes only escaping backslashes and the closing quote.
        let close = Int(index[cursor + 1])
        if close < end, base[close] == UInt8(ascii: "\"") {
            cursor += 2
            builder.scanner.position = close + 1
            return builder.append(.string, offset: start, length: close + 1 - start)
        }
        // Escapes are checked, and flagged, by the scalar parser's code.
        builder.scanner.position = start
        let node = try builder.parseString()
        while Int(index[cursor]) < builder.scanner.position { cursor += 1 }
        return node
    }

    private mutating func parseObject(_ open: Int) throws(JSONParseError) {
        try builder.scanner.enterContainer()
        let node = builder.append(.object, offset: open, length: 0)
        let irregularitiesAtOpen = builder.irregularities
        cursor += 1
        builder.scanner.position = open + 1
        var position = token()
        if position < end, base[position] == UInt8(ascii: "}") {
            cursor += 1
            builder.scanner.position = position + 1
            builder.scanner.depth -= 1
            try builder.close(node, children: 0, irregularitiesAtOpen: irregularitiesAtOpen)
            return
        }
        let mark = builder.nameNodes.count
        var large = LargeObjectNames()
        var members = 0
        while true {
            position = token()
            guard position < end, base[position] == UInt8(ascii: "\"") else { throw IndexedTapeBuilder.giveUp }
            let name = try parseString(position)
            try builder.checkDuplicate(name, since: mark, large: &large)
            position = token()
            guard position < end, base[position] == UInt8(ascii: ":") else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
            builder.scanner.position = position + 1
            try parseValue()
            members += 1
            position = token()
            guard position < end else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
            builder.scanner.position = position + 1
            let byte = base[position]
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "}") { break }
            throw IndexedTapeBuilder.giveUp
        }
        builder.scanner.depth -= 1
        builder.nameNodes.truncate(to: mark)
        builder.nameHashes.truncate(to: mark)
        try builder.close(node, children: members, irregularitiesAtOpen: irregularitiesAtOpen)
    }

    private mutating func parseArray(_ open: Int) throws(JSONParseError) {
        try builder.scanner.enterContainer()
        let node = builder.append(.array, offset: open, length: 0)
        let irregularitiesAtOpen = builder.irregularities
        cursor += 1
        builder.scanner.position = open + 1
        var position = token()
        if position < end, base[position] == UInt8(ascii: "]") {
            cursor += 1
            builder.scanner.position = position + 1
            builder.scanner.depth -= 1
            try builder.close(node, children: 0, irregularitiesAtOpen: irregularitiesAtOpen)
            return
        }
        var elements = 0
        while true {
            try parseValue()
            elements += 1
            position = token()
            guard position < end else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
            builder.scanner.position = position + 1
            let byte = base[position]
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "]") { break }
            throw IndexedTapeBuilder.giveUp
        }
        builder.scanner.depth -= 1
        try builder.close(node, children: elements, irregularitiesAtOpen: irregularitiesAtOpen)
    }
}
