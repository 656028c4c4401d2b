/// An answer whose header lines are rendered already: what the connection writes, with its
/// status line, `Date` and connection header around them. A cached answer keeps its lines with
/// its entry (`ResponseCache.Stored.keptHead`), so a hit writes them without rendering each
/// header again; any other answer is rendered from its `HTTPResponse` as it is handed over.
package struct RenderedAnswer: Sendable {
    package var status: Int
    /// Each header line and `Content-Length` (`HTTPResponse.appendHeaderLines`), no blank line.
    package var lines: [UInt8]
    package var body: [UInt8]

    package init(status: Int, lines: [UInt8], body: [UInt8]) {
        self.status = status
        self.lines = lines
        self.body = body
    }

    /// `response` rendered for writing.
    package init(_ response: HTTPResponse) {
        var lines: [UInt8] = []
        lines.reserveCapacity(40 + response.headers.count * 48)
        response.appendHeaderLines(bodyBytes: response.body.count, to: &lines)
        self.init(status: response.status, lines: lines, body: response.body)
    }

    /// The head as written: status line, `Date` (empty: none), the lines, `Connection: close`
    /// unless `keepAlive`, the blank line.
    package func head(keepAlive: Bool, date: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + lines.count)
        Self.appendStatusLine(status, date: date, to: &bytes)
        bytes.append(contentsOf: lines)
        Self.appendEnd(keepAlive: keepAlive, to: &bytes)
        return bytes
    }

    static func appendStatusLine(_ status: Int, date: String, to bytes: inout [UInt8]) {
        bytes.appendUTF8("HTTP/1.1 ")
        bytes.appendDecimal(status)
        bytes.append(UInt8(ascii: " "))
        bytes.appendUTF8(HTTPResponse.reason(status))
        bytes.appendUTF8("\r\n")
        if !date.isEmpty {
            bytes.appendUTF8("Date: ")
            bytes.appendUTF8(date)
            bytes.appendUTF8("\r\n")
        }
    }

    static func appendEnd(keepAlive: Bool, to bytes: inout [UInt8]) {
        if !keepAlive { bytes.appendUTF8("Connection: close\r\n") }
        bytes.appendUTF8("\r\n")
    }
}
