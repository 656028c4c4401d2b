// The lexical half of the strict RFC 8259 grammar: whitespace, literals, numbers, strings
// (JSONScanner+Strings.swift), nesting depth and error positions. `TapeBuilder`
// (JSONTapeParser.swift) drives it and owns the structure (objects, arrays, duplicate names);
// it is the only parser: a `JSON` tree is built from its tape (JSON+Parse.swift), so there is
// one grammar, one duplicate-name check and one set of limits and messages.

struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let base: UnsafePointer<UInt8>
    let end: Int
    var position = 0
    var depth = 0
    let maxDepth: Int
    /// Reused for strings with escapes, so each one does not allocate a buffer of its own.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.base = base
        self.end = bytes.count
        self.maxDepth = maxDepth
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
