// Strings on the tape: checked once while parsing (escapes, UTF-8, control characters) and
// flagged when escaped or not as the canonical writer spells them, but not decoded; the
// value is decoded when something reads it (`JSONTape.string`).

extension TapeBuilder {
    /// Checks a string at its opening quote and appends its node.
    mutating func parseString() throws(JSONParseError) -> Int {
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
    func isCanonicalEscape(at offset: Int) -> Bool {
        let base = scanner.base
        guard offset + 1 < scanner.end else { return false }
        switch base[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        case UInt8(ascii: "u"):
            guard offset + 5 < scanner.end, base[offset + 2] == UInt8(ascii: "0"), base[offset + 3] == UInt8(ascii: "0")
            else { return false }
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
}
