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
                    // The parser has checked the digits, and that a low surrogate follows a high one.
                    var scalar = StringBytes.hex4(base + i).unsafelyUnwrapped
                    i += 4
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        let low = StringBytes.hex4(base + i + 2).unsafelyUnwrapped
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                    count += StringBytes.writeUTF8(scalar, to: output + count)
                    continue
                default: output[count] = kind  // `"`, `\` and `/` stand for themselves
                }
                count += 1
            }
            return count
        }
    }
}
