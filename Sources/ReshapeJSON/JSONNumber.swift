/// A JSON number kept as its exact source text (RFC 8259 grammar), so a 20-digit id,
/// `0.1`, `1.5E+300` and `-0` pass through untouched. Numeric meaning is computed only
/// when an operation asks for it.
public struct JSONNumber: Sendable {
    /// The number exactly as written; always valid RFC 8259 number grammar.
    public let text: String

    /// Wraps text already known to be valid number grammar (the parser's path).
    @inlinable public init(uncheckedText text: String) { self.text = text }

    /// Nil when `text` is not a valid JSON number.
    public init?(_ text: String) {
        guard JSONNumber.isValidGrammar(text.utf8) else { return nil }
        self.text = text
    }

    public init(_ value: Int) { text = String(value) }

    /// The nearest Double (may round or overflow to infinity for huge exponents).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// Checks RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    public static func isValidGrammar<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func digit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if i < end, bytes[i] == 0x2D { i = bytes.index(after: i) }
        guard i < end else { return false }
        if bytes[i] == 0x30 {
            i = bytes.index(after: i)
        } else if digit(bytes[i]) {
            while i < end, digit(bytes[i]) { i = bytes.index(after: i) }
        } else {
            return false
        }
        if i < end, bytes[i] == 0x2E {
            i = bytes.index(after: i)
            guard i < end, digit(bytes[i]) else { return false }
            while i < end, digit(bytes[i]) { i = bytes.index(after: i) }
        }
        if i < end, bytes[i] == 0x65 || bytes[i] == 0x45 {
            i = bytes.index(after: i)
            if i < end, bytes[i] == 0x2B || bytes[i] == 0x2D { i = bytes.index(after: i) }
            guard i < end, digit(bytes[i]) else { return false }
            while i < end, digit(bytes[i]) { i = bytes.index(after: i) }
        }
        return i == end
    }
}
