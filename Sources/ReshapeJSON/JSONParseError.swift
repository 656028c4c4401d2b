/// Why a document is not JSON, and where: byte offset, 1-based line, and 1-based column
/// counted in Unicode scalars (so it matches what an editor shows).
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, without the position (e.g. `trailing comma before ']'`).
    public var message: String
    /// Byte offset from the start of the parsed bytes.
    public var offset: Int
    /// 1-based line; lines end at `\n`.
    public var line: Int
    /// 1-based column in Unicode scalars (UTF-8 continuation bytes are not counted).
    public var column: Int

    public init(message: String, offset: Int, line: Int, column: Int) {
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// `line:column: message`, the form editors and `reshape format` print.
    public var description: String { "\(line):\(column): \(message)" }

    /// Builds the error for `offset` in `bytes`, counting lines and columns only now, on the error path.
    static func at(_ offset: Int, in bytes: UnsafeBufferPointer<UInt8>, _ message: String) -> JSONParseError {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let byte = bytes[i]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return JSONParseError(message: message, offset: offset, line: line, column: column)
    }
}

/// Limits applied while parsing.
public struct JSONParseOptions: Sendable {
    /// Deepest nesting of arrays and objects accepted; deeper input is an error, never a stack overflow.
    public var maxDepth: Int
    /// How the parser finds the document's structure; every choice gives the same tape and errors.
    public var path: JSONParsePath
    public init(maxDepth: Int = 512, path: JSONParsePath = .automatic) {
        self.maxDepth = maxDepth
        self.path = path
    }
}

/// The parser's first stage (docs/benchmarks.md, "The parser's two stages"). Only tests, fuzz
/// targets and benchmarks need anything but `.automatic`.
public enum JSONParsePath: Sendable, CaseIterable {
    /// A structural index by the widest SIMD code this CPU runs (AVX2, else SSE4.2); on a CPU
    /// with neither (and off x86-64), the scalar parser alone, as the portable index is slower.
    case automatic
    /// The structural index by the portable C code, as on a CPU without SIMD support.
    case portableIndex
    /// No index: the byte-by-byte recursive-descent parser alone (the one that reports errors).
    case scalar
}
