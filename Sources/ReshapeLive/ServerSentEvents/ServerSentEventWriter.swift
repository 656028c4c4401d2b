/// Writes events and comments as `text/event-stream` bytes: `id:`, `event:`, one `data:` line
/// per line of the data, then a blank line.
///
/// What `ServerSentEventParser` (and a browser's `EventSource`) reads back is the same event,
/// except that line ends inside the data (CRLF, CR or LF) come back as LF: the format has only
/// lines, not their separators.
public enum ServerSentEventWriter {
    /// Appends `event` to `output`: `id: …` (when it has one), `event: …` (always, even for
    /// "message", so the stream reads plainly), one `data: …` line per line of the data, and the
    /// blank line that dispatches it.
    ///
    /// The name and the id are single lines: one with a CR or LF in it (or an id with a NUL, which
    /// clients ignore) is a caller's bug and traps; written as is, it would start another field.
    public static func append(_ event: ServerSentEvent, to output: inout [UInt8]) {
        if let id = event.id {
            precondition(
                isOneLine(id) && !id.utf8.contains(0), "ServerSentEventWriter: an event id has a line break or NUL")
            appendField("id", id, to: &output)
        }
        precondition(isOneLine(event.name), "ServerSentEventWriter: an event name has a line break")
        appendField("event", event.name, to: &output)
        appendLines(of: event.data, prefix: "data", to: &output)
        output.append(LineBreaks.lineFeed)
    }

    /// Appends a comment, which clients ignore; it keeps idle connections (and the proxies on the
    /// way) open. Written `: text` (one such line per line of `text`) and then a blank line, so it
    /// is a block of its own for clients and intermediaries that split the stream on blank lines;
    /// to a conforming parser that blank line dispatches nothing, since every event this writer
    /// writes has already ended with its own.
    public static func appendComment(_ text: String, to output: inout [UInt8]) {
        appendLines(of: text, prefix: "", to: &output)
        output.append(LineBreaks.lineFeed)
    }

    private static func appendField(_ name: StaticString, _ value: String, to output: inout [UInt8]) {
        name.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: ":"))
        if !value.isEmpty {
            output.append(UInt8(ascii: " "))
            output.append(contentsOf: value.utf8)
        }
        output.append(LineBreaks.lineFeed)
    }

    /// One `prefix: line` per line of `text` (split at CRLF, CR or LF); an empty text is one empty line.
    private static func appendLines(of text: String, prefix: StaticString, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            output.reserveCapacity(output.count + bytes.count + 16)
            var start = 0
            while true {
                let end = LineBreaks.first(in: bytes, from: start) ?? bytes.count
                prefix.withUTF8Buffer { output.append(contentsOf: $0) }
                output.append(UInt8(ascii: ":"))
                if end > start {
                    output.append(UInt8(ascii: " "))
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
                }
                output.append(LineBreaks.lineFeed)
                guard end < bytes.count else { return }
                start = end + 1
                if bytes[end] == LineBreaks.carriageReturn, start < bytes.count, bytes[start] == LineBreaks.lineFeed {
                    start += 1
                }
            }
        }
    }

    private static func isOneLine(_ text: String) -> Bool {
        !text.utf8.contains(LineBreaks.lineFeed) && !text.utf8.contains(LineBreaks.carriageReturn)
    }
}
