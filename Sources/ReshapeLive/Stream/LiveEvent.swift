import ReshapeJSON
import ReshapeProblem

/// One event a live route's subscriber gets: the normalized answer, a change to it, or the
/// problem that ended the stream. Its `id` increases from 1 within the stream.
public struct LiveEvent: Sendable {
    /// What the event carries; it names the event (`snapshot`, `patch`, `error`).
    public enum Kind: Sendable {
        /// The whole normalized answer: what a plain GET returns at that moment.
        case snapshot(JSON)
        /// The RFC 6902 patch that turns the previous answer into the new one.
        case patch(JSONPatch)
        /// Why the stream ended; nothing follows.
        case error(Problem)
    }

    /// The `id:` field: 1 for the stream's first event, one more for each after it.
    public var id: Int
    public var kind: Kind

    public init(id: Int, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// The SSE event name: `snapshot`, `patch` or `error`.
    public var name: String {
        switch kind {
        case .snapshot: "snapshot"
        case .patch: "patch"
        case .error: "error"
        }
    }

    /// The event's data: the answer, the patch or the problem, as compact JSON. Compact JSON
    /// escapes every line break inside strings, so it is always one `data:` line.
    public var data: [UInt8] {
        switch kind {
        case .snapshot(let answer): answer.serialized()
        case .patch(let patch): patch.serialized()
        case .error(let problem): problem.body.serialized()
        }
    }

    /// The event as the subscriber's `text/event-stream` carries it.
    public var serverSentEvent: ServerSentEvent {
        ServerSentEvent(name: name, data: String(decoding: data, as: UTF8.self), id: String(id))
    }

    /// Appends the event's bytes (`id: 3`, `event: patch`, `data: [...]`, a blank line) to
    /// `output`: the one rendering, so `reshape replay` prints what the server sends.
    public func appendServerSentEvent(to output: inout [UInt8]) {
        ServerSentEventWriter.append(serverSentEvent, to: &output)
    }
}
