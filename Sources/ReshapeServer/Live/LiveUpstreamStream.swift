import CLibUV
import ReshapeJSON
import ReshapeLive
import ReshapeProxy

/// One upstream event stream and the subscribers that share it: the upstream's bytes go
/// through `ServerSentEventParser` and `FirebaseEvent` into one `LiveStream`, whose events go
/// to every subscriber under its own ids. Keeps the subscribers alive with `: keep-alive`,
/// reconnects after a transient disconnect, and ends everyone when the stream ends for good.
final class LiveUpstreamStream {
    /// Where the stream is in its life.
    private enum Phase {
        /// The upstream stream is open (or being opened, or redirected).
        case connected(UpstreamStream)
        /// Waiting to reconnect after a transient disconnect.
        case reconnecting(RouteTimer)
        /// The transfer ended, or could not start; what next is being decided.
        case disconnected
        /// Closed: nothing more is sent or opened.
        case closed
    }

    let key: String
    /// Its upstream host, which the hub bounds the streams to.
    let host: String
    var routeName: String { subscription.route.name }
    /// The answer its subscribers hold now; nil before the first snapshot.
    var answer: JSON? { stream.answer }
    private let subscription: LiveSubscription
    private var stream: LiveStream
    private var parser = ServerSentEventParser()
    private(set) var subscribers: [LiveSubscriber] = []
    private var phase = Phase.disconnected
    private var keepAliveTimer: RouteTimer?
    private var idleCloseTimer: RouteTimer?
    /// Reconnections since the stream last stayed up `stableSeconds`, for the backoff.
    private var failures = 0
    /// When the current transfer started (monotonic seconds).
    private var connectedAt = 0.0
    /// How long a transfer must last before its end counts as a new first failure. Not reset
    /// by a snapshot: an upstream that sends its first `put` and drops would otherwise be
    /// reconnected every quarter second, resending the whole answer each time.
    static let stableSeconds = 30.0
    /// The failures in a row after which the reconnections are logged.
    static let failuresReported = 5
    /// What ended its subscribers, once they were: the stream may not be ended itself (an
    /// invalid upstream event is the server's finding, not the stream's), and a subscriber
    /// that joins before the deferred close gets the same.
    private var endProblem: LiveProblem?
    private unowned let hub: LiveHub

    init(subscription: LiveSubscription, hub: LiveHub) {
        key = subscription.streamKey
        host = LiveHub.host(of: subscription.request.url)
        self.subscription = subscription
        self.hub = hub
        stream = subscription.makeStream()
    }

    var isClosed: Bool { if case .closed = phase { true } else { false } }

    /// Ended for good (its `error` is sent, the close may still be due): nobody joins it.
    var isOver: Bool { isClosed || endProblem != nil || stream.isEnded }

    /// Opens the upstream transfer and starts the keep-alive timer.
    func open() {
        connect()
        armKeepAlive()
    }

    /// Adds a subscriber; it gets the current answer at once when there is one.
    func join(_ subscriber: LiveSubscriber) {
        idleCloseTimer?.stop()
        idleCloseTimer = nil
        subscribers.append(subscriber)
        if let answer = stream.answer { subscriber.send(RenderedEvent(.snapshot(answer))) }
    }

    /// Removes a subscriber; without any left, the stream closes shortly after (a client that
    /// reconnects at once finds it still open).
    func leave(_ subscriber: LiveSubscriber) {
        subscribers.removeAll { $0 === subscriber }
        guard subscribers.isEmpty, idleCloseTimer == nil, !isClosed else { return }
        idleCloseTimer = RouteTimer(loop: hub.loop, milliseconds: hub.idleCloseMilliseconds) { [weak self] in
            guard let self else { return }
            self.idleCloseTimer = nil
            if self.subscribers.isEmpty { self.close() }
        }
    }

    /// Ends every subscriber with `problem` and closes.
    func endAll(_ problem: LiveProblem) {
        endSubscribers(problem)
        close()
    }

    /// Ends every subscriber with `problem` now; the upstream closes on the loop's next turn
    /// (this runs inside curl's write callback, which may not remove its own transfer).
    private func endFromCallback(_ problem: LiveProblem) {
        endSubscribers(problem)
        later { $0.close() }
    }

    /// Closes on the loop's next turn: safe from anywhere, a curl callback included.
    func closeLater() {
        later { $0.close() }
    }

    private func endSubscribers(_ problem: LiveProblem) {
        if endProblem == nil { endProblem = problem }
        for subscriber in subscribers { subscriber.end(with: problem) }
    }

    /// Closes the upstream transfer and the timers; the hub forgets the stream.
    func close() {
        switch phase {
        case .connected(let upstream):
            hub.upstream.cancelStream(upstream)
            hub.metrics.liveUpstreamStreamsChanged(by: -1)
        case .reconnecting(let timer): timer.stop()
        case .disconnected: break
        case .closed: return
        }
        phase = .closed
        keepAliveTimer?.stop()
        keepAliveTimer = nil
        idleCloseTimer?.stop()
        idleCloseTimer = nil
        // None is dropped silently, which would leave its connection hanging: any still here
        // (ended already, or joined after the end) gets the end, or `shutting-down` when the
        // worker closes the stream. Ending one only writes to its connection.
        let remaining = subscribers
        subscribers = []
        for subscriber in remaining { subscriber.end(with: endProblem ?? .shuttingDown(context: context)) }
        hub.forget(self)
    }

    // MARK: - Upstream

    private func connect() {
        parser = ServerSentEventParser()
        let upstream = hub.upstream.startStream(
            subscription.request, stallSeconds: hub.stallSeconds,
            received: { [weak self] bytes in self?.received(bytes) },
            ended: { [weak self] result in self?.ended(result) })
        guard let upstream else {
            phase = .disconnected
            return reconnectLater()
        }
        phase = .connected(upstream)
        connectedAt = Clock.monotonicSeconds()
        hub.metrics.liveUpstreamStreamsChanged(by: 1)
    }

    /// Bytes of the upstream stream; runs inside curl's write callback, so anything that
    /// closes the transfer waits for the loop's next turn.
    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard case .connected = phase, !stream.isEnded else { return }
        let events: [ServerSentEvent]
        do {
            events = try parser.feed(bytes.assumingMemoryBound(to: UInt8.self))
        } catch {
            return endFromCallback(.streamInvalid("an upstream event is too large", context: context))
        }
        for event in events where !stream.isEnded {
            hub.metrics.liveEventReceived()
            let firebase: FirebaseEvent
            do {
                firebase = try FirebaseEvent(event)
            } catch {
                // Firebase may add event names; an unknown one is skipped, a malformed one ends.
                if case .unknownEvent = error { continue }
                return endFromCallback(.streamInvalid("the upstream sent a malformed event", context: context))
            }
            switch stream.received(firebase) {
            case .none: continue
            case .send(let event):
                // Serialized once for every subscriber: only the `id:` line is each one's own.
                let rendered = RenderedEvent(event.kind)
                for subscriber in subscribers { subscriber.send(rendered) }
                dropEnded()
            case .end(let event):
                guard case .error(let problem) = event.kind else { continue }
                return endFromCallback(problem)
            }
        }
    }

    /// The transfer ended by itself: anything but a 200 event stream ends the stream for good,
    /// and so does a redirect its upstream's `redirects:` refuses; an event stream that ended,
    /// or a transport failure, is transient and reconnects.
    private func ended(_ result: UpstreamResult) {
        guard case .connected = phase else { return }
        hub.metrics.liveUpstreamStreamsChanged(by: -1)
        phase = .disconnected
        if case .response(let response) = result,
            response.status != 200 || !(response.contentType ?? "").lowercased().hasPrefix("text/event-stream")
        {
            return endAll(.streamRefused(status: response.status, contentType: response.contentType, context: context))
        }
        if case .failure(.redirectRefused, let reason) = result {
            return endAll(.redirectRefused(reason, context: context))
        }
        if Clock.monotonicSeconds() - connectedAt >= Self.stableSeconds { failures = 0 }
        reconnectLater()
    }

    private func reconnectLater() {
        guard !subscribers.isEmpty, !stream.isEnded else { return close() }
        _ = stream.reconnected()
        let ceiling = min(10_000, 250 << min(failures, 6))
        failures += 1
        // Said once per run of failures (the URL and headers may hold credentials: not logged).
        if failures == Self.failuresReported {
            Log.event(
                "live upstream stream keeps failing; reconnecting with backoff",
                ["route": .string(routeName), "upstream": .string(subscription.route.upstream)])
        }
        let delay = ceiling / 2 + Int.random(in: 0...(ceiling / 2))
        phase = .reconnecting(
            RouteTimer(loop: hub.loop, milliseconds: delay) { [weak self] in
                guard let self, case .reconnecting = self.phase else { return }
                self.connect()
            })
    }

    // MARK: - Subscribers

    private func armKeepAlive() {
        // A stream that could not even start may be closed already: no timer to hold the loop.
        guard !isClosed else { return }
        keepAliveTimer = RouteTimer(loop: hub.loop, milliseconds: subscription.policy.keepAliveMilliseconds) {
            [weak self] in
            guard let self, !self.isClosed else { return }
            for subscriber in self.subscribers { subscriber.keepAlive() }
            self.armKeepAlive()
        }
    }

    /// Subscribers cut off as slow consumers leave through their connection; they are out now.
    private func dropEnded() {
        let ended = subscribers.filter(\.isEnded)
        for subscriber in ended { leave(subscriber) }
    }

    /// Runs `work` on the loop's next turn, if the stream is still there.
    private func later(_ work: @escaping (LiveUpstreamStream) -> Void) {
        _ = RouteTimer(loop: hub.loop, milliseconds: 1) { [weak self] in
            guard let self, !self.isClosed else { return }
            work(self)
        }
    }

    var context: [JSONMember] { subscription.context }
}
