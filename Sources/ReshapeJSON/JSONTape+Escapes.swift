// A string node's value when its text has escapes, decoded from the tape's bytes into memory
// the caller provides: no `String`, no array. The parser has checked the text (every escape
// well formed, surrogates paired), so this only decodes; the parser's two stages are where an
// escape is judged (`JSONScanner.parseEscape`, `IndexedTapeBuilder.escape(at:)`).

extension JSONTape {
    /// Decodes the escaped string at `node` into `output`, which has room for its text's length
    /// (a decoded value is never longer than its text); returns the decoded byte count.
    func decodeEscaped(_ node: Int, into output: UnsafeMutablePointer<UInt8>) -> Int {
        let n = nodes[node]
        return bytes.withUnsafeBufferPointer { all -> Int in
            let base = all.baseAddress!
            var i = Int(n.offset) + 1
            let end = Int(n.offset + n.length) - 1
            var count = 0
            while i < end {
                let byte = base[i]
                guard byte == UInt8(ascii: "\\") else {
                    output[count] = byte
                    count += 1
                    i += 1
                    continue
                }
                let kind = base[i + 1]
                i += 2
                switch kind {
                case UInt8(ascii: "b"): output[count] = 0x08
                case UInt8(ascii: "f"): output[count] = 0x0C
                case UInt8(ascii: "n"): output[count] = 0x0A
                case UInt8(ascii: "r"): output[count] = 0x0D
                case UInt8(ascii: "t"): output[count] = 0x09
                case UInt8(ascii: "u"):
                    var scalar = Self.hex4(base + i)
                    i += 4
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        // The parser has seen its low surrogate: `\uDC00`-`\uDFFF` follows.
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (Self.hex4(base + i + 2) - 0xDC00)
                        i += 6
                    }
                    count += Self.writeUTF8(scalar, to: output + count)
                    continue
                default: output[count] = kind  // `"`, `\` and `/` stand for themselves
                }
                count += 1
            }
            return count
        }
    }

    /// The value of four hex digits the parser has checked.
    @inline(__always) private static func hex4(_ digits: UnsafePointer<UInt8>) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            let byte = UInt32(digits[k])
            // '0'-'9' are 0x30-0x39; 'a'-'f' and 'A'-'F' differ by 0x20 and are 9 past their low nibble.
            value = value << 4 | (byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x57)
        }
        return value
    }

    /// Writes `scalar` as UTF-8; returns its byte count.
    @inline(__always) private static func writeUTF8(_ scalar: UInt32, to output: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            output[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            output[0] = UInt8(0xC0 | scalar >> 6)
            output[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            output[0] = UInt8(0xE0 | scalar >> 12)
            output[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            output[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            output[0] = UInt8(0xF0 | scalar >> 18)
            output[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            output[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            output[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
