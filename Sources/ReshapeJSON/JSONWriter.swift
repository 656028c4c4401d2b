// The canonical writer: deterministic output (members in their stored order, numbers as
// their exact text), compact or pretty with two-space indentation. Only what JSON requires
// is escaped: `"`, `\` and control characters; `/` and non-ASCII are written as they are.

extension JSON {
    /// The value as UTF-8 JSON text.
    public func serialized(pretty: Bool = false) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self)
        return writer.output
    }

    /// The value as JSON text.
    public func serializedString(pretty: Bool = false) -> String {
        String(decoding: serialized(pretty: pretty), as: UTF8.self)
    }
}

/// Appends JSON text to a byte buffer; reuse one writer to reuse its buffer.
public struct JSONWriter {
    public var output: [UInt8]
    public let pretty: Bool
    private var indentLevel = 0

    public init(pretty: Bool = false, capacity: Int = 4096) {
        self.pretty = pretty
        output = []
        output.reserveCapacity(capacity)
    }

    public mutating func write(_ value: JSON) {
        switch value {
        case .null: appendLiteral("null")
        case .bool(let flag): appendLiteral(flag ? "true" : "false")
        case .number(let number): appendUTF8(number.text)
        case .string(let string): writeString(string)
        case .array(let elements): writeArray(elements)
        case .object(let object): writeObject(object)
        }
    }

    private mutating func writeArray(_ elements: [JSON]) {
        if elements.isEmpty {
            appendLiteral("[]")
            return
        }
        output.append(UInt8(ascii: "["))
        indentLevel += 1
        var first = true
        for element in elements {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            newline()
            write(element)
        }
        indentLevel -= 1
        newline()
        output.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: JSONObject) {
        if object.isEmpty {
            appendLiteral("{}")
            return
        }
        output.append(UInt8(ascii: "{"))
        indentLevel += 1
        var first = true
        for member in object.members {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            newline()
            writeString(member.key)
            output.append(UInt8(ascii: ":"))
            if pretty { output.append(UInt8(ascii: " ")) }
            write(member.value)
        }
        indentLevel -= 1
        newline()
        output.append(UInt8(ascii: "}"))
    }

    @inline(__always) private mutating func newline() {
        guard pretty else { return }
        output.append(0x0A)
        for _ in 0..<indentLevel {
            output.append(0x20)
            output.append(0x20)
        }
    }

    @inline(__always) private mutating func appendLiteral(_ literal: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    @inline(__always) private mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { output.append(contentsOf: $0) }
    }

    /// Writes a quoted string, copying runs that need no escaping in one go.
    public mutating func writeString(_ string: String) {
        var string = string
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { bytes in
            var runStart = 0
            var i = 0
            let count = bytes.count
            while i < count {
                let byte = bytes[i]
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    i += 1
                    continue
                }
                if runStart < i { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                appendEscape(byte)
                i += 1
                runStart = i
            }
            if runStart < count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(_ byte: UInt8) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            output.append(UInt8(ascii: "u"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0"))
            output.append(hexDigits.utf8Start[Int(byte >> 4)])
            output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}
