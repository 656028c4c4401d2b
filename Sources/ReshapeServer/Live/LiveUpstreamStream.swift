import CLibUV
import ReshapeJSON
import ReshapeLive
import ReshapeProxy

/// One upstream event stream and the subscribers that share it: the upstream's bytes go
/// through `ServerSentEventParser` and `FirebaseEvent` into one `LiveStream`, whose events go
/// to every subscriber under its own ids. Keeps the subscribers alive with `: keep-alive`,
/// reconnects after a transient disconnect, and ends everyone when the stream ends for good.
final class LiveUpstreamStream {
    let key: String
    /// Its upstream host, which the hub bounds the streams to.
    let host: String
    var routeName: String { subscription.route.name }
    /// The answer its subscribers hold now; nil before the first snapshot.
    var answer: JSON? { stream.answer }
    private let subscription: LiveSubscription
    /// Decides when to connect, reconnect, end and close; this performs its actions.
    private var machine: UpstreamStreamStateMachine
    private var stream: LiveStream
    private var parser = ServerSentEventParser()
    /// The snapshot of the answer as it is now, rendered for the first subscriber that needed
    /// it and written as is to every later one (a large answer takes long to render): each
    /// write holds the same bytes. Dropped when the answer changes (any event sent, a reset).
    private var renderedSnapshot: RenderedEvent?
    private(set) var subscribers: [LiveSubscriber] = []
    /// The upstream transfer open now (across its redirects).
    private var transfer: UpstreamStream?
    private var reconnectTimer: RouteTimer?
    private var keepAliveTimer: RouteTimer?
    private var idleCloseTimer: RouteTimer?
    private unowned let hub: LiveHub

    init(subscription: LiveSubscription, hub: LiveHub) {
        key = subscription.streamKey
        host = LiveHub.host(of: subscription.request.url)
        self.subscription = subscription
        self.hub = hub
        machine = UpstreamStreamStateMachine(context: subscription.context)
        stream = subscription.makeStream()
    }

    var isClosed: Bool { machine.isClosed }

    /// Ended for good (its `error` is sent, the close may still be due): nobody joins it.
    var isOver: Bool { machine.isOver }

    /// Opens the upstream transfer and starts the keep-alive timer.
    func open() {
        perform(machine.open())
    }

    /// Adds a subscriber; it gets the current answer at once when there is one.
    func join(_ subscriber: LiveSubscriber) {
        perform(machine.subscriberJoined())
        subscribers.append(subscriber)
        guard let answer = stream.answer else { return }
        if subscriber.hasView {
            subscriber.sendView(of: answer, snapshot: true)
        } else {
            subscriber.send(snapshot(of: answer))
        }
    }

    /// The snapshot event of `answer`, the stream's answer now: rendered once per answer.
    private func snapshot(of answer: JSON) -> RenderedEvent {
        if let renderedSnapshot { return renderedSnapshot }
        let rendered = RenderedEvent(.snapshot(answer))
        renderedSnapshot = rendered
        return rendered
    }

    /// Removes a subscriber; without any left, the stream closes shortly after.
    func leave(_ subscriber: LiveSubscriber) {
        subscribers.removeAll { $0 === subscriber }
        perform(machine.subscriberLeft(hasSubscribers: !subscribers.isEmpty))
    }

    /// The worker is draining: every subscriber gets `shutting-down`, and the stream closes.
    func drain() {
        perform(machine.drain())
    }

    /// Closes on the loop's next turn: safe from anywhere, a curl callback included.
    func closeLater() {
        _ = RouteTimer(loop: hub.loop, milliseconds: 1) { [weak self] in
            guard let self else { return }
            self.perform(self.machine.closeDue())
        }
    }

    /// Closes the upstream transfer and the timers; the hub forgets the stream.
    func close() {
        perform(machine.close())
    }

    // MARK: - Actions

    private func perform(_ actions: [UpstreamStreamStateMachine.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: UpstreamStreamStateMachine.Action) {
        switch action {
        case .startTransfer: startTransfer()
        case .cancelTransfer:
            if let transfer { hub.upstream.cancelStream(transfer) }
            transfer = nil
        case .upstreamStreamsChanged(let delta): hub.metrics.liveUpstreamStreamsChanged(by: delta)
        case .resetStream:
            renderedSnapshot = nil
            _ = stream.reconnected()
        case .logKeepsFailing:
            Log.event(
                "live upstream stream keeps failing; reconnecting with backoff",
                ["route": .string(routeName), "upstream": .string(subscription.route.upstream)])
        case .startReconnectTimer(let milliseconds):
            reconnectTimer = RouteTimer(loop: hub.loop, milliseconds: milliseconds) { [weak self] in
                guard let self else { return }
                self.reconnectTimer = nil
                self.perform(self.machine.reconnectDue())
            }
        case .stopReconnectTimer:
            reconnectTimer?.stop()
            reconnectTimer = nil
        case .sendKeepAlive:
            for subscriber in subscribers { subscriber.keepAlive() }
        case .startKeepAliveTimer:
            keepAliveTimer = RouteTimer(loop: hub.loop, milliseconds: subscription.policy.keepAliveMilliseconds) {
                [weak self] in
                guard let self else { return }
                self.keepAliveTimer = nil
                self.perform(self.machine.keepAliveDue())
            }
        case .stopKeepAliveTimer:
            keepAliveTimer?.stop()
            keepAliveTimer = nil
        case .startIdleCloseTimer(let milliseconds):
            idleCloseTimer = RouteTimer(loop: hub.loop, milliseconds: milliseconds) { [weak self] in
                guard let self else { return }
                self.idleCloseTimer = nil
                self.perform(self.machine.idleCloseDue(hasSubscribers: !self.subscribers.isEmpty))
            }
        case .stopIdleCloseTimer:
            idleCloseTimer?.stop()
            idleCloseTimer = nil
        case .endSubscribers(let problem):
            for subscriber in subscribers { subscriber.end(with: problem) }
        case .closeOnNextTurn: closeLater()
        case .releaseSubscribers(let problem):
            // Ending one only writes to its connection.
            let remaining = subscribers
            subscribers = []
            for subscriber in remaining { subscriber.end(with: problem) }
        case .forgetStream: hub.forget(self)
        }
    }

    // MARK: - Upstream

    /// Opens the transfer and reports at once whether it could be.
    private func startTransfer() {
        parser = ServerSentEventParser()
        transfer = hub.upstream.startStream(
            subscription.request, stallSeconds: hub.stallSeconds,
            received: { [weak self] bytes in self?.received(bytes) },
            ended: { [weak self] result in self?.ended(result) })
        if transfer == nil {
            perform(machine.transferNotStarted(hasSubscribers: !subscribers.isEmpty))
        } else {
            perform(machine.transferStarted(now: Clock.monotonicSeconds()))
        }
    }

    /// Bytes of the upstream stream; runs inside curl's write callback, so anything that
    /// closes the transfer waits for the loop's next turn.
    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard machine.isReceiving else { return }
        let events: [ServerSentEvent]
        do {
            events = try parser.feed(bytes.assumingMemoryBound(to: UInt8.self))
        } catch {
            return perform(machine.ended(with: .streamInvalid("an upstream event is too large", context: context)))
        }
        for event in events {
            hub.metrics.liveEventReceived()
            let firebase: FirebaseEvent
            do {
                firebase = try FirebaseEvent(event)
            } catch {
                // Firebase may add event names; an unknown one is skipped, a malformed one ends.
                if case .unknownEvent = error { continue }
                return perform(
                    machine.ended(with: .streamInvalid("the upstream sent a malformed event", context: context)))
            }
            switch stream.received(firebase) {
            case .none: continue
            case .send(let event):
                // The answer changed: a subscriber joining now gets it, not the last one.
                renderedSnapshot = nil
                if case .snapshot = event.kind { machine.snapshotDelivered() }
                // Serialized once for every subscriber: only the `id:` line is each one's own.
                // A subscriber with a client view gets its own event, made from the answer.
                var rendered: RenderedEvent?
                let isSnapshot: Bool = if case .snapshot = event.kind { true } else { false }
                for subscriber in subscribers {
                    if subscriber.hasView, let answer = stream.answer {
                        subscriber.sendView(of: answer, snapshot: isSnapshot)
                        continue
                    }
                    if rendered == nil { rendered = RenderedEvent(event.kind) }
                    subscriber.send(rendered!)
                }
                // A snapshot sent is the answer's: the next subscriber to join gets the same.
                if isSnapshot { renderedSnapshot = rendered }
                dropEnded()
            case .end(let event):
                renderedSnapshot = nil
                guard case .error(let problem) = event.kind else { continue }
                return perform(machine.ended(with: problem))
            }
        }
    }

    /// The transfer ended by itself (its `ended` runs once, and never after `cancelStream`).
    private func ended(_ result: UpstreamResult) {
        transfer = nil
        perform(machine.transferEnded(result, now: Clock.monotonicSeconds(), hasSubscribers: !subscribers.isEmpty))
    }

    // MARK: - Subscribers

    /// Subscribers cut off as slow consumers leave through their connection; they are out now.
    private func dropEnded() {
        let ended = subscribers.filter(\.isEnded)
        for subscriber in ended { leave(subscriber) }
    }

    var context: [JSONMember] { subscription.context }
}
