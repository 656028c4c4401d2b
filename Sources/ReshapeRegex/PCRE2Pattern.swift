import CPCRE2

/// A regular expression compiled by PCRE2 (JIT-compiled where the platform allows), matched on
/// UTF-8 bytes without allocating. Its syntax is PCRE2's, compiled with UTF, ALT_BSUX (plus
/// `\u{...}`) and DOLLAR_ENDONLY and without UCP: callers translate ECMA-262 patterns into the
/// part of that syntax whose meaning is the same (see `ReshapeSchema`'s `ECMARegexDialect`).
///
/// Immutable once made, so one instance may be matched from any number of threads: the match
/// data lives per thread, in the C shim.
public final class PCRE2Pattern: @unchecked Sendable {
    public struct CompileError: Error, CustomStringConvertible {
        public let message: String
        /// Byte offset in the pattern where PCRE2 gave up.
        public let offset: Int
        public var description: String { "\(message) at offset \(offset)" }
    }

    /// The PCRE2 pattern text.
    public let pattern: String
    /// False when the JIT is unavailable here (an unsupported CPU, or no executable memory):
    /// matching then runs PCRE2's interpreter.
    public let isJIT: Bool
    private let code: OpaquePointer

    public init(_ pattern: String) throws(CompileError) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        var jit: Int32 = 0
        var text = pattern
        let code = text.withUTF8 { reshape_pcre2_compile($0.baseAddress, $0.count, &errorCode, &errorOffset, &jit) }
        guard let code else {
            throw CompileError(message: Self.message(errorCode), offset: errorOffset)
        }
        self.pattern = pattern
        self.code = code
        isJIT = jit != 0
    }

    deinit { reshape_pcre2_free(code) }

    /// Whether the pattern matches somewhere in `utf8`, which must be valid UTF-8 (it is not
    /// checked). Nil when PCRE2 could not finish (match or depth limit, JIT stack exhausted,
    /// out of memory): the caller must find the answer another way.
    @inline(__always)
    public func matches(utf8: UnsafeBufferPointer<UInt8>) -> Bool? {
        let rc = reshape_pcre2_match(code, isJIT ? 1 : 0, utf8.baseAddress, utf8.count)
        return rc == 1 ? true : (rc == 0 ? false : nil)
    }

    static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = reshape_pcre2_error_message(code, &buffer, buffer.count)
        return length > 0 ? String(decoding: buffer[..<Int(length)], as: UTF8.self) : "PCRE2 error \(code)"
    }
}
