// String scanning for the parser: an eight-bytes-at-a-time fast path for plain ASCII, and a
// checked slow path for escapes (including surrogate pairs) and multi-byte UTF-8.

extension JSONScanner {
    /// Parses a string starting at its opening quote. Plain ASCII runs are scanned eight
    /// bytes at a time; escapes and non-ASCII take the slower, checked path.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes, ASCII only.
        while true {
            skipPlainBytes()
            guard position < end else { throw error(at: start - 1, "unterminated string") }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                let string = String(
                    decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
                position += 1
                return string
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 { break }
            if byte < 0x20 { throw error(at: position, controlCharacterMessage(byte)) }
            position += 1
        }
        return try parseStringSlowPath(start: start)
    }

    /// The high bit of each byte that is a quote, a backslash, a control character or
    /// non-ASCII; the lowest flag is exact.
    @inline(__always) static func attentionMask(_ word: UInt64) -> UInt64 {
        StringBytes.specialMask(word) | (word & StringBytes.highBits)
    }

    /// Moves `position` eight bytes at a time past bytes that need no attention, stopping at
    /// the first quote, backslash, control character or non-ASCII byte (or near the end).
    @inline(__always) mutating func skipPlainBytes() {
        while position + 8 <= end {
            let mask = JSONScanner.attentionMask(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            if mask != 0 {
                // The lowest flag is exact: jump straight to that byte.
                position += mask.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
    }

    /// The checked path, entered at the first backslash or non-ASCII byte. Plain runs stay in
    /// the source and are copied in bulk; `scratch` is used only once an escape appears.
    mutating func parseStringSlowPath(start: Int) throws(JSONParseError) -> String {
        var escaped = false
        var runStart = start
        while true {
            skipPlainBytes()
            guard position < end else { throw error(at: start - 1, "unterminated string") }
            let byte = base[position]
            switch byte {
            case UInt8(ascii: "\""):
                let string: String
                if escaped {
                    scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart))
                    string = String(decoding: scratch, as: UTF8.self)
                } else {
                    string = String(
                        decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
                }
                position += 1
                return string
            case UInt8(ascii: "\\"):
                if !escaped {
                    scratch.removeAll(keepingCapacity: true)
                    escaped = true
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart))
                try parseEscape()
                runStart = position
            case 0..<0x20:
                throw error(at: position, controlCharacterMessage(byte))
            case 0x80...:
                position += try validateUTF8Sequence()
            default:
                position += 1
            }
        }
    }

    mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = position
        position += 1
        guard position < end else { throw error(at: escapeStart, "unterminated escape sequence") }
        let byte = base[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: escapeStart)
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard position + 1 < end, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u")
                else {
                    throw error(
                        at: escapeStart, "lone high surrogate \\u\(hex(scalar)) (needs a following low surrogate)")
                }
                let lowStart = position
                position += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw error(at: escapeStart, "lone high surrogate \\u\(hex(scalar)) (followed by \\u\(hex(low)))")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw error(at: escapeStart, "lone low surrogate \\u\(hex(scalar))")
            }
            appendUTF8(scalar)
        default:
            throw error(at: escapeStart, "invalid escape sequence '\\\(printable(byte))'")
        }
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        guard position + 4 <= end else {
            throw error(at: escapeStart, "incomplete \\u escape, expected four hex digits")
        }
        guard let value = StringBytes.hex4(base + position) else {
            throw error(at: escapeStart, "invalid \\u escape, expected four hex digits")
        }
        position += 4
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { buffer in
            let count = StringBytes.writeUTF8(scalar, to: buffer.baseAddress!)
            scratch.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: count))
        }
    }

    /// Checks one multi-byte UTF-8 sequence at `position` (RFC 3629: no overlongs, no
    /// surrogates, nothing above U+10FFFF) and returns its length.
    func validateUTF8Sequence() throws(JSONParseError) -> Int {
        let lead = base[position]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: throw error(at: position, "invalid UTF-8 byte 0x\(hex(UInt32(lead)))")
        }
        guard position + length <= end else { throw error(at: position, "truncated UTF-8 sequence") }
        let second = base[position + 1]
        guard second >= low && second <= high else { throw error(at: position, "invalid UTF-8 sequence") }
        for i in 2..<max(2, length) where base[position + i] & 0xC0 != 0x80 {
            throw error(at: position, "invalid UTF-8 sequence")
        }
        return length
    }
}
