import ReshapeRules

/// What a connection does for its live stream's subscriber: the stream's head may wait behind
/// earlier pipelined answers, so the events (and the end) wait here until it is written.
protocol StreamHost: AnyObject {
    /// The sink a subscription of request `id` writes to.
    func streamSink(for id: Int) -> any LiveSink
    /// Request `id` is no longer subscribed (refused, or over): its sink goes.
    func dropStreamSink(for id: Int)
    /// The answer to request `id` is that stream: write its head (with `headers` besides its
    /// own) in turn.
    func streamReady(_ id: Int, headers: [NameValue])
    /// Writes one chunk of the stream.
    func writeChunk(_ chunk: StreamChunk)
    /// Bytes written and not yet on the wire.
    var unsentBytes: Int { get }
    /// Ends the stream's answer and closes.
    func endStream()
}

/// A connection's live stream output, holding what comes before the head is written.
final class StreamOutput: LiveSink {
    private weak var host: (any StreamHost)?
    private var backlog: [StreamChunk] = []
    private var backlogBytes = 0
    private var isOpen = false
    private var endPending = false

    init(host: any StreamHost) {
        self.host = host
    }

    func write(_ chunk: StreamChunk) {
        guard isOpen else {
            backlog.append(chunk)
            backlogBytes += chunk.count
            return
        }
        host?.writeChunk(chunk)
    }

    var unsentBytes: Int { isOpen ? (host?.unsentBytes ?? 0) : backlogBytes }

    func end() {
        guard isOpen else {
            endPending = true
            return
        }
        host?.endStream()
    }

    /// The head is written: what waited goes out, and an end that came meanwhile follows it.
    func opened() {
        isOpen = true
        for chunk in backlog { host?.writeChunk(chunk) }
        backlog = []
        backlogBytes = 0
        if endPending { host?.endStream() }
    }
}
