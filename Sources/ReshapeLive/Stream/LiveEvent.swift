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
        var bytes: [UInt8] = []
        appendData(to: &bytes)
        return bytes
    }

    /// Appends the event's bytes (`id: 3`, `event: patch`, `data: [...]`, a blank line) to
    /// `output`: the one rendering, so `reshape replay` prints what the server sends.
    public func appendServerSentEvent(to output: inout [UInt8]) {
        output.append(contentsOf: "id: \(id)\n".utf8)
        appendServerSentEventAfterID(to: &output)
    }

    /// Appends what follows the event's `id:` line: `event: NAME`, its data as one `data:` line,
    /// and the blank line that ends it. The server renders this once for every subscriber of a
    /// stream, whose `id:` lines are their own. The bytes are those `ServerSentEventWriter`
    /// writes for the same event; the data is serialized straight after `data: `, since it is one
    /// line (an answer of megabytes is not made text and split at line breaks first).
    public func appendServerSentEventAfterID(to output: inout [UInt8]) {
        output.append(contentsOf: "event: ".utf8)
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: "\ndata: ".utf8)
        appendData(to: &output)
        output.append(contentsOf: "\n\n".utf8)
    }

    private func appendData(to output: inout [UInt8]) {
        switch kind {
        case .snapshot(let answer): answer.serialize(into: &output)
        case .patch(let patch): output += patch.serialized()
        case .error(let problem): output += problem.serializedBody
        }
    }
}
