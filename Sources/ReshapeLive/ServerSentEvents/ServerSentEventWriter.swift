/// Writes events and comments as `text/event-stream` bytes: `id:`, `event:`, one `data:` line
/// per line of the data, then a blank line.
public enum ServerSentEventWriter {
    /// Appends `event` to `output`.
    public static func append(_ event: ServerSentEvent, to output: inout [UInt8]) {
        fatalError("ServerSentEventWriter.append: not built yet")
    }

    /// Appends a comment line (`: text`), which clients ignore; keeps idle connections open.
    public static func appendComment(_ text: String, to output: inout [UInt8]) {
        fatalError("ServerSentEventWriter.appendComment: not built yet")
    }
}
