import ReshapeJSON
import ReshapeLive
import ReshapeProblem
import ReshapeStateMachines

/// One live upstream stream's life, as pure logic: the upstream transfer opened, reconnected
/// after a transient end with a backoff, or ended for good; the keep-alive; the close shortly
/// after the last subscriber leaves. Times are monotonic seconds passed in and the backoff's
/// jitter comes from an injected generator, so every rule is tested without sockets or a
/// clock. `LiveUpstreamStream` (ReshapeServer) is its driver: it keeps the transfer, the
/// timers and the subscribers, reports what happens to them, and performs the actions in order.
///
/// A stream that sends nothing for the stall bound is cut off by the upstream client (curl's
/// low-speed limit) and ends like any transport failure: transient, so it reconnects.
package struct UpstreamStreamStateMachine {
    enum State: Equatable {
        /// Made for its first subscriber, who joins before it opens.
        case unopened
        /// The transfer is being started (`startTransfer`); the driver reports at once whether
        /// it could be, so no other event comes in this state. `failures` as in `reconnecting`.
        case connecting(failures: Int)
        /// The transfer is open (or following redirects) since `since`; `failures` transient
        /// ends in a row came before it.
        case connected(since: Double, failures: Int)
        /// Waiting for the reconnect timer after `failures` transient ends in a row (since a
        /// transfer last lasted `stableSeconds`).
        case reconnecting(failures: Int)
        /// An upstream event ended the stream: its subscribers got `problem`. The transfer is
        /// still open (this happened inside its callback, which may not close it); the close
        /// is due on the loop's next turn. Nobody joins.
        case ending(Problem)
        /// Closed: nothing more is sent or opened.
        case closed
    }

    /// What the driver does next, in the order given.
    package enum Action: Sendable, Equatable {
        /// Open the upstream transfer; report `transferStarted` or `transferNotStarted` at once.
        case startTransfer
        /// Close the upstream transfer (never from inside its callbacks); its `ended` never runs.
        case cancelTransfer
        /// Change `reshape_live_upstream_streams`: a transfer opened (1) or is gone (-1).
        case upstreamStreamsChanged(by: Int)
        /// The stream's `LiveStream` starts over: the next root `put` is a fresh snapshot.
        case resetStream
        /// Log that the stream keeps failing (its route and upstream only: the URL and headers
        /// may hold credentials).
        case logKeepsFailing
        /// Report `reconnectDue` after `milliseconds`.
        case startReconnectTimer(milliseconds: Int)
        case stopReconnectTimer
        /// Send `: keep-alive` to every subscriber.
        case sendKeepAlive
        /// Report `keepAliveDue` after the route's keep-alive interval.
        case startKeepAliveTimer
        case stopKeepAliveTimer
        /// Report `idleCloseDue` after `milliseconds`.
        case startIdleCloseTimer(milliseconds: Int)
        case stopIdleCloseTimer
        /// End every subscriber with this problem; they stay on the stream until they leave.
        case endSubscribers(Problem)
        /// Report `closeDue` on the loop's next turn (this runs inside a transfer callback).
        case closeOnNextTurn
        /// Let every subscriber still on the stream go, ending with this problem any that was
        /// not ended yet: none is dropped silently, which would leave its connection hanging.
        case releaseSubscribers(endingWith: Problem)
        /// The hub forgets the stream: the next subscriber to its key opens a new one.
        case forgetStream
    }

    /// How long a transfer must last before its end counts as a new first failure. Not reset
    /// by a snapshot: an upstream that sends its first `put` and drops would otherwise be
    /// reconnected every quarter second, resending the whole answer each time.
    package static let stableSeconds = 30.0
    /// The failures in a row after which the reconnections are logged (once per run).
    package static let failuresReported = 5
    /// The backoff's ceiling after the first failure, doubling with each one up to
    /// `maxBackoffMilliseconds`; the delay is drawn between half the ceiling and the ceiling.
    package static let firstBackoffMilliseconds = 250
    package static let maxBackoffMilliseconds = 10_000
    /// How long a stream nobody subscribes to stays open, for a client that comes right back.
    package static let idleCloseMilliseconds = 500

    /// Every case name of `State`, in declaration order, as docs/architecture.md draws them: a
    /// case added to `State` must be added here too (`stateName` switches over every one).
    package enum StateName: String, CaseIterable, Sendable {
        case unopened, connecting, connected, reconnecting, ending, closed
    }

    /// The current state's case name.
    package var stateName: String {
        switch state {
        case .unopened: StateName.unopened.rawValue
        case .connecting: StateName.connecting.rawValue
        case .connected: StateName.connected.rawValue
        case .reconnecting: StateName.reconnecting.rawValue
        case .ending: StateName.ending.rawValue
        case .closed: StateName.closed.rawValue
        }
    }

    private(set) var state = State.unopened
    /// The idle-close timer runs. Beside `state`: subscribers come and go whatever the
    /// transfer is doing.
    private(set) var idleClosePending = false
    /// A snapshot went out to the subscribers at least once, on any connection: from then on
    /// the upstream's passing trouble on a reconnection is waited out. Beside `state`: it
    /// outlives the reconnections, each of which waits for a fresh snapshot.
    private(set) var hasDelivered = false
    /// The members `shutting-down` names the route by.
    private let context: [JSONMember]
    private var random: any RandomNumberGenerator

    /// A stream whose problems carry `context`; `random` draws the backoff's jitter.
    package init(context: [JSONMember], random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.context = context
        self.random = random
    }

    /// Closed: nothing more is sent or opened.
    package var isClosed: Bool { state == .closed }

    /// Ended for good (its subscribers ended, the close may still be due): nobody joins it.
    package var isOver: Bool {
        switch state {
        case .ending, .closed: true
        case .unopened, .connecting, .connected, .reconnecting: false
        }
    }

    /// Whether the upstream's bytes are read: only while the transfer is open and the stream
    /// has not ended.
    package var isReceiving: Bool { if case .connected = state { true } else { false } }

    // MARK: - The upstream transfer

    /// Its first subscriber joined: open the transfer, and start the keep-alive.
    package mutating func open() -> [Action] {
        switch state {
        case .unopened:
            state = .connecting(failures: 0)
            // The timer first: a transfer that cannot start may close the stream, stopping it.
            return [.startKeepAliveTimer, .startTransfer]
        case .connecting, .connected, .reconnecting, .ending, .closed: impossible("open", in: stateName)
        }
    }

    /// The transfer `startTransfer` asked for is open, at `now`.
    package mutating func transferStarted(now: Double) -> [Action] {
        switch state {
        case .connecting(let failures):
            state = .connected(since: now, failures: failures)
            return [.upstreamStreamsChanged(by: 1)]
        case .unopened, .connected, .reconnecting, .ending, .closed: impossible("transferStarted", in: stateName)
        }
    }

    /// No transfer could be made: a failure like any transient end.
    package mutating func transferNotStarted(hasSubscribers: Bool) -> [Action] {
        switch state {
        case .connecting(let failures): return reconnect(after: failures, hasSubscribers: hasSubscribers)
        case .unopened, .connected, .reconnecting, .ending, .closed: impossible("transferNotStarted", in: stateName)
        }
    }

    /// The transfer ended by itself at `now` with `result`. Anything but a 200 event stream
    /// ends the stream for good, and so does a redirect its upstream's `redirects:` refuses;
    /// an event stream that ended, or a transport failure (a stall included), is transient
    /// and reconnects, from a first failure again when the transfer lasted `stableSeconds`.
    /// Once the stream has delivered (`snapshotDelivered`), an overloaded or failing upstream
    /// (429, 500, 502, 503, 504) on a reconnection is transient too: its subscribers wait for
    /// the next try rather than all ending at one bad answer.
    package mutating func transferEnded(_ result: UpstreamResult, now: Double, hasSubscribers: Bool) -> [Action] {
        switch state {
        case .connected(let since, var failures):
            let gone = Action.upstreamStreamsChanged(by: -1)
            if case .response(let response) = result, hasDelivered, Self.transientStatuses.contains(response.status) {
                return [gone] + reconnect(after: failures, hasSubscribers: hasSubscribers)
            }
            if case .response(let response) = result,
                response.status != 200 || !(response.contentType ?? "").lowercased().hasPrefix("text/event-stream")
            {
                let problem = Problem.streamRefused(
                    status: response.status, contentType: response.contentType, context: context)
                return [gone] + finish(problem)
            }
            if case .failure(.redirectRefused, let reason) = result {
                return [gone] + finish(.redirectRefused(reason, context: context))
            }
            if now - since >= Self.stableSeconds { failures = 0 }
            return [gone] + reconnect(after: failures, hasSubscribers: hasSubscribers)
        case .ending(let problem):
            // Ended before its close came round: nothing to reconnect for.
            return [.upstreamStreamsChanged(by: -1)] + finish(problem)
        case .unopened, .connecting, .reconnecting, .closed: impossible("transferEnded", in: stateName)
        }
    }

    /// A snapshot went out to the subscribers.
    package mutating func snapshotDelivered() { hasDelivered = true }

    /// Answers to a reconnection that are the upstream's passing trouble, not a refusal.
    static let transientStatuses: Set<Int> = [429, 500, 502, 503, 504]

    /// The reconnect timer ran out.
    package mutating func reconnectDue() -> [Action] {
        switch state {
        case .reconnecting(let failures):
            state = .connecting(failures: failures)
            return [.startTransfer]
        case .unopened, .connecting, .connected, .ending, .closed: impossible("reconnectDue", in: stateName)
        }
    }

    /// An upstream event ended the stream with `problem` (an invalid event, `cancel`, a
    /// normalize failure): its subscribers get it now, and it closes on the loop's next turn.
    package mutating func ended(with problem: Problem) -> [Action] {
        switch state {
        case .connected:
            state = .ending(problem)
            return [.endSubscribers(problem), .closeOnNextTurn]
        case .unopened, .connecting, .reconnecting, .ending, .closed: impossible("ended", in: stateName)
        }
    }

    // MARK: - Subscribers and timers

    /// A subscriber joined: a pending idle close is off.
    package mutating func subscriberJoined() -> [Action] {
        switch state {
        case .unopened, .connected, .reconnecting:
            guard idleClosePending else { return [] }
            idleClosePending = false
            return [.stopIdleCloseTimer]
        case .connecting, .ending, .closed: impossible("subscriberJoined", in: stateName)
        }
    }

    /// A subscriber left; without any left, the stream closes shortly after (a client that
    /// reconnects at once finds it still open).
    package mutating func subscriberLeft(hasSubscribers: Bool) -> [Action] {
        switch state {
        case .connected, .reconnecting, .ending:
            guard !hasSubscribers, !idleClosePending else { return [] }
            idleClosePending = true
            return [.startIdleCloseTimer(milliseconds: Self.idleCloseMilliseconds)]
        // Its end came with the close, which let every subscriber go.
        case .closed: return []
        case .unopened, .connecting: impossible("subscriberLeft", in: stateName)
        }
    }

    /// The idle-close timer ran out: the stream closes unless a subscriber came back.
    package mutating func idleCloseDue(hasSubscribers: Bool) -> [Action] {
        guard idleClosePending else { impossible("idleCloseDue", in: stateName + " without an idle close") }
        switch state {
        case .connected, .reconnecting, .ending:
            idleClosePending = false
            return hasSubscribers ? [] : close()
        case .unopened, .connecting, .closed: impossible("idleCloseDue", in: stateName)
        }
    }

    /// The keep-alive timer ran out: a keep-alive to every subscriber, and the next one.
    package mutating func keepAliveDue() -> [Action] {
        switch state {
        case .connected, .reconnecting, .ending: return [.sendKeepAlive, .startKeepAliveTimer]
        case .unopened, .connecting, .closed: impossible("keepAliveDue", in: stateName)
        }
    }

    // MARK: - Closing

    /// The close asked for on the loop's next turn (`closeOnNextTurn`, or the hub retiring a
    /// stream that is over) is due; a stream closed meanwhile stays so.
    package mutating func closeDue() -> [Action] {
        switch state {
        case .ending: return close()
        case .closed: return []
        case .unopened, .connecting, .connected, .reconnecting: impossible("closeDue", in: stateName)
        }
    }

    /// The worker is draining: every subscriber gets `shutting-down` (unless an upstream event
    /// ended them already) and the stream closes.
    package mutating func drain() -> [Action] {
        switch state {
        case .unopened, .connected, .reconnecting, .ending, .closed: return close()
        case .connecting: impossible("drain", in: stateName)
        }
    }

    /// Closes now (the worker is stopping, or the stream is done): the transfer or the
    /// reconnect timer goes, and every subscriber left gets the stream's end, or
    /// `shutting-down`. A second close does nothing.
    package mutating func close() -> [Action] {
        switch state {
        case .unopened:
            return finish(.shuttingDown(context: context))
        case .connected:
            return [.cancelTransfer, .upstreamStreamsChanged(by: -1)] + finish(.shuttingDown(context: context))
        case .reconnecting:
            return [.stopReconnectTimer] + finish(.shuttingDown(context: context))
        case .ending(let problem):
            return [.cancelTransfer, .upstreamStreamsChanged(by: -1)] + finish(problem)
        case .closed:
            return []
        case .connecting:
            impossible("close", in: stateName)
        }
    }

    // MARK: - Helpers

    /// After a failure (`failures` before it, in a row): reconnect after the backoff, or close
    /// when nobody is left to reconnect for. No transfer is open.
    private mutating func reconnect(after failures: Int, hasSubscribers: Bool) -> [Action] {
        guard hasSubscribers else { return finish(.shuttingDown(context: context)) }
        let ceiling = min(Self.maxBackoffMilliseconds, Self.firstBackoffMilliseconds << min(failures, 6))
        var actions: [Action] = [.resetStream]
        // Said once per run of failures.
        if failures + 1 == Self.failuresReported { actions.append(.logKeepsFailing) }
        let delay = ceiling / 2 + Int.random(in: 0...(ceiling / 2), using: &random)
        state = .reconnecting(failures: failures + 1)
        actions.append(.startReconnectTimer(milliseconds: delay))
        return actions
    }

    /// Closed, with no transfer or reconnect timer left to stop: the timers that run stop,
    /// every subscriber left gets `problem`, and the hub forgets the stream.
    private mutating func finish(_ problem: Problem) -> [Action] {
        // The keep-alive runs from the open on.
        var actions: [Action] = state == .unopened ? [] : [.stopKeepAliveTimer]
        state = .closed
        if idleClosePending {
            idleClosePending = false
            actions.append(.stopIdleCloseTimer)
        }
        return actions + [.releaseSubscribers(endingWith: problem), .forgetStream]
    }
}
