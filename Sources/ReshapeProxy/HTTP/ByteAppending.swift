import ReshapeJSON

/// Appending text to bytes in one copy. `bytes += text.utf8` goes through the string's
/// indices one byte at a time; a response head is written per request, so it uses these.
extension Array where Element == UInt8 {
    /// A string's UTF-8 bytes (a native string is contiguous already; another is made so).
    @inline(__always) mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    @inline(__always) mutating func appendUTF8(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// `value` in decimal, without a temporary string.
    mutating func appendDecimal(_ value: Int) {
        withDecimalDigits(of: value) { append(contentsOf: $0) }
    }
}
