// The canonical writer: deterministic output (members in their stored order, numbers as
// their exact text), compact or pretty with two-space indentation. Only what JSON requires
// is escaped: `"`, `\` and control characters (as `\n`, `\t`, ... or `\u00XX`); `/` and
// non-ASCII are written as they are, in UTF-8.

extension JSON {
    /// The value as UTF-8 JSON text.
    public func serialized(pretty: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        serialize(into: &output, pretty: pretty)
        return output
    }

    /// Appends the value as UTF-8 JSON text to `output`, so a caller can reuse one buffer
    /// (clear it with `removeAll(keepingCapacity: true)` between documents).
    public func serialize(into output: inout [UInt8], pretty: Bool = false) {
        var writer = JSONWriter(pretty: pretty, capacity: max(4096, output.capacity - output.count))
        defer { writer.sink.release() }
        writer.write(self)
        output.reserveCapacity(output.count + writer.sink.count)
        writer.sink.copy(into: &output)
    }

    /// The value as JSON text.
    public func serializedString(pretty: Bool = false) -> String {
        String(decoding: serialized(pretty: pretty), as: UTF8.self)
    }
}

struct JSONWriter {
    var sink: ByteSink
    let pretty: Bool
    private var indentLevel = 0

    init(pretty: Bool, capacity: Int) {
        self.init(pretty: pretty, sink: ByteSink(capacity: capacity))
    }

    init(pretty: Bool, sink: ByteSink) {
        self.pretty = pretty
        self.sink = sink
    }

    mutating func write(_ value: JSON) {
        switch value {
        case .null: appendLiteral("null")
        case .bool(let flag): appendLiteral(flag ? "true" : "false")
        case .number(let number): appendRaw(number.text)
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
        sink.append(UInt8(ascii: "["))
        indentLevel += 1
        // Walking the storage directly lets each element be borrowed instead of copied (retained).
        elements.withUnsafeBufferPointer { elements in
            for i in 0..<elements.count {
                if i > 0 { sink.append(UInt8(ascii: ",")) }
                newline()
                write(elements[i])
            }
        }
        indentLevel -= 1
        newline()
        sink.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: JSONObject) {
        if object.isEmpty {
            appendLiteral("{}")
            return
        }
        sink.append(UInt8(ascii: "{"))
        indentLevel += 1
        object.members.withUnsafeBufferPointer { members in
            for i in 0..<members.count {
                if i > 0 { sink.append(UInt8(ascii: ",")) }
                newline()
                writeString(members[i].key)
                if pretty {
                    sink.reserve(2)
                    sink.appendReserved(UInt8(ascii: ":"))
                    sink.appendReserved(UInt8(ascii: " "))
                } else {
                    sink.append(UInt8(ascii: ":"))
                }
                write(members[i].value)
            }
        }
        indentLevel -= 1
        newline()
        sink.append(UInt8(ascii: "}"))
    }

    @inline(__always) private mutating func newline() {
        guard pretty else { return }
        sink.reserve(1 + 2 * indentLevel)
        sink.appendReserved(0x0A)
        for _ in 0..<(2 * indentLevel) { sink.appendReserved(0x20) }
    }

    @inline(__always) private mutating func appendLiteral(_ literal: StaticString) {
        sink.append(literal.utf8Start, count: literal.utf8CodeUnitCount)
    }

    @inline(__always) private mutating func appendRaw(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            if let base = bytes.baseAddress { sink.append(base, count: bytes.count) }
        }
        if written == nil {
            var copy = text
            copy.withUTF8 { bytes in
                if let base = bytes.baseAddress { sink.append(base, count: bytes.count) }
            }
        }
    }

    /// Writes a quoted string. Strings with nothing to escape (checked eight bytes at a
    /// time) are copied in one go; others go byte by byte.
    mutating func writeString(_ string: String) {
        // The non-mutating view avoids copying (retaining) the string; native strings always have one.
        if string.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) == nil {
            var copy = string
            copy.withUTF8 { writeString(utf8: $0) }
        }
    }

    mutating func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        do {
            let count = bytes.count
            sink.reserve(count + 2)
            sink.appendReserved(UInt8(ascii: "\""))
            guard let base = bytes.baseAddress else {
                sink.appendReserved(UInt8(ascii: "\""))
                return
            }
            if JSONWriter.isClean(base, count) {
                sink.appendReserved(base, count: count)
                sink.appendReserved(UInt8(ascii: "\""))
                return
            }
            var i = 0
            var runStart = 0
            while i < count {
                let byte = base[i]
                if !JSONWriter.needsEscape(byte) {
                    i += 1
                    continue
                }
                sink.append(base + runStart, count: i - runStart)
                appendEscape(byte)
                i += 1
                runStart = i
            }
            sink.append(base + runStart, count: count - runStart)
            sink.append(UInt8(ascii: "\""))
        }
    }

    /// True when none of the `count` bytes needs escaping. Checks whole words, covering a
    /// ragged end with one overlapping load instead of a byte loop.
    @inline(__always) private static func isClean(_ base: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let raw = UnsafeRawPointer(base)
        if count >= 8 {
            var i = 0
            while i + 8 <= count {
                if needsEscape(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return false }
                i += 8
            }
            return i == count || !needsEscape(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        if count >= 4 {
            let head = UInt64(raw.loadUnaligned(as: UInt32.self))
            let tail = UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return !needsEscape(head | tail << 32)
        }
        for i in 0..<count where needsEscape(base[i]) { return false }
        return true
    }

    @inline(__always) private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// True when any of the eight bytes is a quote, a backslash or a control character.
    /// (Bytes of 0x80 and up are UTF-8 and pass.)
    @inline(__always) private static func needsEscape(_ word: UInt64) -> Bool {
        StringBytes.specialMask(word) != 0
    }

    private mutating func appendEscape(_ byte: UInt8) {
        sink.reserve(6)
        sink.appendReserved(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): sink.appendReserved(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): sink.appendReserved(UInt8(ascii: "\\"))
        case 0x08: sink.appendReserved(UInt8(ascii: "b"))
        case 0x0C: sink.appendReserved(UInt8(ascii: "f"))
        case 0x0A: sink.appendReserved(UInt8(ascii: "n"))
        case 0x0D: sink.appendReserved(UInt8(ascii: "r"))
        case 0x09: sink.appendReserved(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            sink.appendReserved(UInt8(ascii: "u"))
            sink.appendReserved(UInt8(ascii: "0"))
            sink.appendReserved(UInt8(ascii: "0"))
            sink.appendReserved(hexDigits.utf8Start[Int(byte >> 4)])
            sink.appendReserved(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}
