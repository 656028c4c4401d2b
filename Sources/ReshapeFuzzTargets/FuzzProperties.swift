// What every fuzz target's property code shares: the input as bytes, and properties that
// trap with a message that says which one broke.

/// The input as an array (libFuzzer may pass a null pointer for the empty input).
func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A property every input must have. Traps (libFuzzer saves the input as a crash) with a
/// message that says which property broke; unlike `assert`, it is checked in every build.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("fuzz property violated: \(message())", file: file, line: line) }
}

/// Printable form of bytes for failure messages: at most `limit` bytes, escaped.
func describe(_ bytes: some Collection<UInt8>, limit: Int = 200) -> String {
    var text = ""
    for byte in bytes.prefix(limit) {
        switch byte {
        case 0x20..<0x7F where byte != UInt8(ascii: "\\"): text.unicodeScalars.append(Unicode.Scalar(byte))
        case UInt8(ascii: "\n"): text += "\\n"
        case UInt8(ascii: "\r"): text += "\\r"
        default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }
    }
    return bytes.count > limit ? text + "…(\(bytes.count) bytes)" : text
}
