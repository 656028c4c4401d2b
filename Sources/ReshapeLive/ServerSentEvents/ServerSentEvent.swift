/// One event of a `text/event-stream` (WHATWG HTML, "Server-sent events"): what the parser
/// dispatches and what the writer sends.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; "message" when the stream named none.
    public var name: String
    /// The `data:` lines joined by "\n" (the last line's newline removed).
    public var data: String
    /// The `id:` field of this event, when it carried one.
    public var id: String?

    public init(name: String = "message", data: String, id: String? = nil) {
        self.name = name
        self.data = data
        self.id = id
    }
}
