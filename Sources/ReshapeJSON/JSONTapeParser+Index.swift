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
    /// Stage 1's positions for the window being walked, then two markers (`end` once the
    /// text is done). Windows keep the index small enough to stay in cache and its memory
    /// bounded whatever the document's size.
    let index: UnsafeMutablePointer<UInt32>
    var cursor = 0
    var filled = 0
    var stage1 = json_index_scanner()
    let base: UnsafePointer<UInt8>
    let end: Int
    /// Bytes stage 1 indexes per window (a multiple of 64).
    let window: Int

    static let defaultWindow = 64 << 10

    /// True when stage 1 has a SIMD path on this CPU. Without one, `.automatic` parses by the
    /// scalar parser alone, which is faster than stage 2 over the portable index.
    static let hasSIMD = json_index_resolve(JSON_INDEX_PATH_AUTO) != JSON_INDEX_PATH_PORTABLE

    /// Thrown to give up; never reaches a caller (the scalar parser reports the real error).
    static let giveUp = JSONParseError(message: "", offset: 0, line: 0, column: 0)

    /// The tape's nodes, their count and capacity, or nil when the document is not valid JSON
    /// or stage 2 gave up.
    static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, options: JSONParseOptions,
        window: Int = defaultWindow
    ) -> (UnsafeMutablePointer<TapeNode>, Int, Int)? {
        precondition(window >= 64 && window % 64 == 0, "stage 1 indexes whole 64-byte blocks")
        let count = buffer.count
        // A byte order mark is an error the scalar parser words.
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { return nil }
        // A window's positions, the 64 stage 1 may write past them, the one left over from
        // the last window, and two markers or sentinels.
        let capacity = min(count, window) + 67
        let index = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer { index.deallocate() }
        var walker = IndexedTapeBuilder(
            builder: TapeBuilder(JSONScanner(buffer, base: base, maxDepth: options.maxDepth)), index: index, base: base,
            end: count, window: window)
        index[0] = marker
        index[1] = marker
        json_index_begin(
            &walker.stage1, base, count,
            options.path == .portableIndex ? JSON_INDEX_PATH_PORTABLE : JSON_INDEX_PATH_AUTO)
        do throws(JSONParseError) {
            try walker.parseDocument()
            return walker.builder.finish()
        } catch {
            walker.builder.discard()
            return nil
        }
    }

    /// Follows the last position of a window not yet walked; never a position (a document has
    /// fewer than 2^32 - 1 bytes).
    static let marker = UInt32.max

    /// The position at the cursor (`ahead` 0) or the one after it (1), indexing the next
    /// window first when the current one is used up (a window may hold no position at all).
    @inline(__always) private mutating func entry(_ ahead: Int) throws(JSONParseError) -> Int {
        var value = index[cursor + ahead]
        while value == IndexedTapeBuilder.marker {
            try refill()
            value = index[cursor + ahead]
        }
        return Int(value)
    }

    private mutating func refill() throws(JSONParseError) {
        // Keeps the positions from the cursor on (at most one), then appends a window's.
        let kept = filled - cursor
        for k in 0..<kept { index[k] = index[cursor + k] }
        cursor = 0
        filled = kept
        if stage1.offset < end {
            filled += json_index_next(&stage1, index + filled, window)
        }
        guard json_index_flags(&stage1) == 0 else { throw IndexedTapeBuilder.giveUp }
        // Two after the last, as the cursor may look one ahead: markers, or the end twice.
        let next = stage1.offset >= end ? UInt32(truncatingIfNeeded: end) : IndexedTapeBuilder.marker
        index[filled] = next
        index[filled + 1] = next
        if stage1.offset >= end { filled += 1 }
    }

    mutating func parseDocument() throws(JSONParseError) {
        try parseValue()
        // Only whitespace after the root value: nothing but the sentinel is left.
        guard try entry(0) == end else { throw IndexedTapeBuilder.giveUp }
        // Stage 1's flags cover the whole text only now.
        guard stage1.offset >= end, json_index_flags(&stage1) == 0 else { throw IndexedTapeBuilder.giveUp }
    }

    /// Moves to the token at the cursor. A gap before it is whitespace: stage 1 indexes the
    /// first byte of anything else, and `scalarEnd` checks the bytes after a scalar.
    @inline(__always) private mutating func token() throws(JSONParseError) -> Int {
        let position = try entry(0)
        if position != builder.scanner.position {
            builder.irregularities += 1
            builder.scanner.position = position
        }
        return position
    }

    /// Steps past a scalar's position; what follows the scalar up to the next one must be whitespace.
    @inline(__always) private mutating func scalarEnd() throws(JSONParseError) {
        cursor += 1
        let next = try entry(0)
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
        let position = try token()
        guard position < end else { throw IndexedTapeBuilder.giveUp }
        switch base[position] {
        case UInt8(ascii: "{"): try parseObject(position)
        case UInt8(ascii: "["): try parseArray(position)
        case UInt8(ascii: "\""): _ = try parseString(position)
        case UInt8(ascii: "t"):
            try literal(at: position, 0x6575_7274, length: 4)  // "true"
            _ = builder.append(.true, offset: position, length: 4)
            try scalarEnd()
        case UInt8(ascii: "f"):
            try literal(at: position, 0x736C_6166, length: 5)  // "fals", then "e"
            _ = builder.append(.false, offset: position, length: 5)
            try scalarEnd()
        case UInt8(ascii: "n"):
            try literal(at: position, 0x6C6C_756E, length: 4)  // "null"
            _ = builder.append(.null, offset: position, length: 4)
            try scalarEnd()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try builder.scanner.scanNumber()
            _ = builder.append(.number, offset: position, length: builder.scanner.position - position)
            try scalarEnd()
        default: throw IndexedTapeBuilder.giveUp
        }
    }

    /// Checks a literal by one four-byte load (its first four bytes, little-endian) and, for
    /// `false`, the fifth byte.
    @inline(__always) private mutating func literal(at position: Int, _ word: UInt32, length: Int)
        throws(JSONParseError)
    {
        guard position + length <= end,
            UInt32(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self)) == word,
            length == 4 || base[position + 4] == UInt8(ascii: "e")
        else { throw IndexedTapeBuilder.giveUp }
        builder.scanner.position = position + length
    }

    /// A string at its opening quote's position (the cursor's).
    @inline(__always) private mutating func parseString(_ start: Int) throws(JSONParseError) -> Int {
        // Inside a string stage 1 indexes only escaping backslashes and the closing quote.
        let close = try entry(1)
        if close < end, base[close] == UInt8(ascii: "\"") {
            cursor += 2
            builder.scanner.position = close + 1
            return builder.append(.string, offset: start, length: close + 1 - start)
        }
        return try parseEscapedString(start)
    }

    /// A string whose next position is not its closing quote but a backslash: inside a string
    /// stage 1 indexes each backslash that starts an escape, so only the escapes are read; the
    /// bytes between them are text stage 1 has checked. Flagged as the scalar parser flags it.
    @inline(never) private mutating func parseEscapedString(_ start: Int) throws(JSONParseError) -> Int {
        cursor += 1
        var canonical = true
        while true {
            let position = try entry(0)
            guard position < end else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
            if base[position] == UInt8(ascii: "\"") {
                builder.scanner.position = position + 1
                let flags = TapeNode.escapedFlag | (canonical ? 0 : TapeNode.nonCanonicalFlag)
                return builder.append(.string, offset: start, length: position + 1 - start, flags: flags)
            }
            guard base[position] == UInt8(ascii: "\\") else { throw IndexedTapeBuilder.giveUp }
            if !builder.isCanonicalEscape(at: position) {
                builder.irregularities += 1
                canonical = false
            }
            try escape(at: position)
        }
    }

    /// Checks the escape whose backslash is at `position`; for a surrogate pair, steps the
    /// cursor past its second backslash too.
    @inline(__always) private mutating func escape(at position: Int) throws(JSONParseError) {
        guard position + 1 < end else { throw IndexedTapeBuilder.giveUp }
        switch base[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let scalar = try hex4(at: position + 2)
            if scalar >= 0xDC00 && scalar <= 0xDFFF { throw IndexedTapeBuilder.giveUp }  // a lone low surrogate
            guard scalar >= 0xD800 && scalar <= 0xDBFF else { return }
            // A high surrogate: its low one must follow as the next escape.
            let low = position + 6
            guard low + 1 < end, base[low] == UInt8(ascii: "\\"), base[low + 1] == UInt8(ascii: "u"),
                try entry(0) == low
            else { throw IndexedTapeBuilder.giveUp }
            let second = try hex4(at: low + 2)
            guard second >= 0xDC00 && second <= 0xDFFF else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
        default:
            throw IndexedTapeBuilder.giveUp
        }
    }

    /// The value of the four hex digits at `position`.
    @inline(__always) private func hex4(at position: Int) throws(JSONParseError) -> UInt32 {
        guard position + 4 <= end, let value = StringBytes.hex4(base + position) else {
            throw IndexedTapeBuilder.giveUp
        }
        return value
    }

    private mutating func parseObject(_ open: Int) throws(JSONParseError) {
        try builder.scanner.enterContainer()
        let node = builder.append(.object, offset: open, length: 0)
        let irregularitiesAtOpen = builder.irregularities
        cursor += 1
        builder.scanner.position = open + 1
        var position = try token()
        if position < end, base[position] == UInt8(ascii: "}") {
            cursor += 1
            builder.scanner.position = position + 1
            builder.scanner.depth -= 1
            try builder.close(node, children: 0, irregularitiesAtOpen: irregularitiesAtOpen)
            return
        }
        var names = builder.openNames(node)
        var members = 0
        while true {
            position = try token()
            guard position < end, base[position] == UInt8(ascii: "\"") else { throw IndexedTapeBuilder.giveUp }
            let name = try parseString(position)
            try builder.checkDuplicate(name, index: members, in: &names)
            position = try token()
            guard position < end, base[position] == UInt8(ascii: ":") else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
            builder.scanner.position = position + 1
            try parseValue()
            members += 1
            position = try token()
            guard position < end else { throw IndexedTapeBuilder.giveUp }
            cursor += 1
            builder.scanner.position = position + 1
            let byte = base[position]
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "}") { break }
            throw IndexedTapeBuilder.giveUp
        }
        builder.scanner.depth -= 1
        builder.closeNames(names)
        try builder.close(node, children: members, irregularitiesAtOpen: irregularitiesAtOpen)
    }

    private mutating func parseArray(_ open: Int) throws(JSONParseError) {
        try builder.scanner.enterContainer()
        let node = builder.append(.array, offset: open, length: 0)
        let irregularitiesAtOpen = builder.irregularities
        cursor += 1
        builder.scanner.position = open + 1
        var position = try token()
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
            position = try token()
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
