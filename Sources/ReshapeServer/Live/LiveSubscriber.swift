import CLibUV
import ReshapeJSON
import ReshapeLive
import ReshapeProblem
import ReshapeProxy
import ReshapeRules

/// Where a subscriber's bytes go: its client connection, which frames them as chunks.
protocol LiveSink: AnyObject {
    /// Writes one piece of the stream (one chunk).
    func write(_ chunk: StreamChunk)
    /// Bytes handed to `write` and not yet on the wire.
    var unsentBytes: Int { get }
    /// The stream is over: end the answer and close the connection.
    func end()
}

/// One client of a live route: its own event ids (from 1), its buffer bound, and what its
/// access-log line says when it ends.
final class LiveSubscriber {
    let routeName: String
    let policy: LivePolicy
    private let context: [JSONMember]
    private weak var sink: (any LiveSink)?
    /// The id of its last event.
    private(set) var lastID = 0
    private(set) var eventsSent = 0
    private(set) var bytesSent = 0
    /// Why its stream ended, when it ended with an `error` event.
    private(set) var errorCode: String?
    private(set) var isEnded = false
    /// The size of the last snapshot sent: the bound on unsent bytes leaves room for it.
    private var snapshotBytes = 0
    private let metrics: Metrics
    /// Ends the stream with `token-expired` when the subscriber's token expires (`auth` routes).
    private var tokenExpiry: RouteTimer?
    /// Its client view, when it asked for one: its events are its own, not the stream's.
    private var view: LiveView?
    var hasView: Bool { view != nil }

    init(subscription: LiveSubscription, sink: any LiveSink, metrics: Metrics) {
        routeName = subscription.route.name
        policy = subscription.policy
        context = subscription.context
        self.sink = sink
        self.metrics = metrics
        view = subscription.view
    }

    /// Sends this subscriber's view of the stream's answer `answer`: a snapshot (`snapshot`:
    /// the stream sent one), or the patch between its views, or nothing when its view is the
    /// same. Made per subscriber: views differ.
    func sendView(of answer: JSON, snapshot: Bool) {
        guard !isEnded, var view else { return }
        let kind = view.event(for: answer, snapshot: snapshot)
        self.view = view
        if let kind { send(RenderedEvent(kind)) }
    }

    /// Sends a snapshot or patch under this subscriber's next id. When what the socket had not
    /// taken yet, before this event, passes `buffer` (beyond the last snapshot, which may be
    /// larger than `buffer` by itself), the subscriber is behind: it gets `slow-consumer` and
    /// ends (false). Measured before the event is queued, so that one event larger than
    /// `buffer` (a big patch) does not cut off a client that keeps up.
    @discardableResult
    func send(_ event: RenderedEvent) -> Bool {
        guard !isEnded, let sink else { return false }
        guard sink.unsentBytes <= policy.bufferBytes + snapshotBytes else {
            metrics.liveSlowConsumerClosed()
            end(with: .slowConsumer(limit: policy.bufferBytes, context: context))
            return false
        }
        lastID += 1
        let chunk = StreamChunk(own: Array("id: \(lastID)\n".utf8), shared: event.bytesAfterID)
        metrics.liveEventSent(patch: event.isPatch)
        if event.isSnapshot { snapshotBytes = chunk.count }
        emit(chunk)
        return true
    }

    /// Ends the stream with `token-expired` at `unixSeconds`, the subscriber's token's `exp`.
    func expire(at unixSeconds: Double, loop: UnsafeMutablePointer<uv_loop_t>) {
        // Computed in Double and bounded before it becomes an Int: `exp` is the issuer's number.
        let remaining = unixSeconds * 1000 - Double(Clock.unixMilliseconds())
        let milliseconds = remaining.isNaN ? 1 : Int(min(max(remaining, 1), Self.longestTimerMilliseconds))
        tokenExpiry = RouteTimer(loop: loop, milliseconds: milliseconds) { [weak self] in
            self?.end(with: .tokenExpired)
        }
    }

    /// A token valid for longer still ends its stream after 24 days.
    static let longestTimerMilliseconds = 24.0 * 86_400_000

    /// The subscriber left its stream: its token's timer is stopped.
    func left() {
        tokenExpiry?.stop()
        tokenExpiry = nil
    }

    /// Sends `: keep-alive`, unless the subscriber is already behind.
    func keepAlive() {
        guard !isEnded, let sink, sink.unsentBytes < policy.bufferBytes else { return }
        var bytes: [UInt8] = []
        ServerSentEventWriter.appendComment("keep-alive", to: &bytes)
        sink.write(StreamChunk(own: bytes))
        bytesSent += bytes.count
    }

    /// Sends a last `error` event with `problem` and ends the stream.
    func end(with problem: Problem) {
        guard !isEnded else { return }
        lastID += 1
        var bytes: [UInt8] = []
        LiveEvent(id: lastID, kind: .error(problem)).appendServerSentEvent(to: &bytes)
        errorCode = problem.code
        metrics.liveEventSent(patch: false)
        emit(StreamChunk(own: bytes))
        isEnded = true
        left()
        sink?.end()
    }

    private func emit(_ chunk: StreamChunk) {
        eventsSent += 1
        bytesSent += chunk.count
        sink?.write(chunk)
    }
}

/// A snapshot or patch rendered once for all the subscribers of a stream: everything but its
/// `id:` line, which is each subscriber's own and comes first. Every subscriber's write holds
/// the same `bytesAfterID`.
struct RenderedEvent {
    let isSnapshot: Bool
    let isPatch: Bool
    /// `event: ...`, `data: ...` and the blank line.
    let bytesAfterID: [UInt8]

    init(_ kind: LiveEvent.Kind) {
        var bytes: [UInt8] = []
        LiveEvent(id: 0, kind: kind).appendServerSentEventAfterID(to: &bytes)
        bytesAfterID = bytes
        if case .snapshot = kind { isSnapshot = true } else { isSnapshot = false }
        if case .patch = kind { isPatch = true } else { isPatch = false }
    }
}
