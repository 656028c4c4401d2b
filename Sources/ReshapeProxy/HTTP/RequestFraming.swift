import ReshapeRules

/// Checks a request's framing headers for ambiguity (RFC 9112 §6.1, §6.3) before it is
/// dispatched. http_parser already refuses most of these, but the connection must not
/// depend on one parser's leniency: a request that two servers could frame differently is
/// the raw material of request smuggling, so it is answered 400 and the connection closed.
package enum RequestFraming {
    /// Why `headers` frame the body ambiguously, or nil when they are fine.
    package static func ambiguity(in headers: [NameValue]) -> String? {
        var contentLengths: [Substring] = []
        var codings: [Substring] = []
        for header in headers {
            if equalsIgnoringCase(header.name, "content-length") {
                // A comma list ("5, 5") counts as several values.
                contentLengths += header.value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
            } else if equalsIgnoringCase(header.name, "transfer-encoding") {
                codings += header.value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
            }
        }
        if !contentLengths.isEmpty && !codings.isEmpty {
            return "Content-Length and Transfer-Encoding together"
        }
        if contentLengths.count > 1 {
            return "more than one Content-Length"
        }
        if let length = contentLengths.first, length.isEmpty || !length.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return "Content-Length is not a number"
        }
        if let last = codings.last, !equalsIgnoringCase(String(last), "chunked") {
            return "the final Transfer-Encoding is not chunked"
        }
        if codings.dropLast().contains(where: { equalsIgnoringCase(String($0), "chunked") }) {
            return "chunked applied more than once"
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Over the bytes, not the strings' indices: header names are compared on every request.
        var a = a
        var b = b
        return a.withUTF8 { a in
            b.withUTF8 { b in
                for index in 0..<a.count where lower(a[index]) != lower(b[index]) { return false }
                return true
            }
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
