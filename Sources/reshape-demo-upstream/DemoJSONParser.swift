// Reads a write's JSON body into a DemoValue. The demo's own small parser, not ReshapeJSON's, so
// that the demo stays an independent witness of what Reshape sends and receives.

/// A strict RFC 8259 parser for request bodies: one value, surrounded by whitespace only.
/// Numbers keep their text; an object member named twice keeps its last value, in the place
/// of its first (as a JavaScript object, and so Firebase, would).
struct DemoJSONParser {
    /// Deeper bodies are refused (Firebase itself stores 32 levels).
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    /// The value `bytes` holds, or nil when they are not exactly one JSON value.
    static func parse(_ bytes: [UInt8]) -> DemoValue? {
        var parser = DemoJSONParser(bytes: bytes)
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipSpace()
        return parser.index == bytes.count ? value : nil
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func literal(_ text: String, _ value: DemoValue) -> DemoValue? {
        let expected = Array(text.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            return nil
        }
        index += expected.count
        return value
    }

    private mutating func value(depth: Int) -> DemoValue? {
        skipSpace()
        guard let byte = current, depth <= DemoJSONParser.maxDepth else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(DemoValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> DemoValue? {
        index += 1
        var members: [(String, DemoValue)] = []
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\""), let name = string() else { return nil }
            skipSpace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value(depth: depth + 1) else { return nil }
            if let existing = members.firstIndex(where: { $0.0 == name }) {
                members[existing].1 = member
            } else {
                members.append((name, member))
            }
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> DemoValue? {
        index += 1
        var elements: [DemoValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string literal starting at `"`, its escapes decoded; nil when malformed.
    private mutating func string() -> String? {
        index += 1
        var out: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                out.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\uXXXX` escape (the `\u` already read), joining a surrogate pair.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                return nil
            }
            index += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { return nil }
        index += 4
        return value
    }

    /// A number as its text, checked against the JSON grammar.
    private mutating func number() -> DemoValue? {
        let start = index
        func digits() -> Int {
            let from = index
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
            return index - from
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return nil
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }
}
