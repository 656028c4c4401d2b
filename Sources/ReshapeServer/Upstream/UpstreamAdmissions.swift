import ReshapeProxy

/// Every limited upstream's `FetchAdmission`, shared by the worker loops: `max-in-flight` is
/// per process. Only fetches to an upstream with `max-in-flight` come here (the others take
/// no lock). A place freed on one loop wakes the first waiter through its own loop's mailbox;
/// wakes are sent after the lock is let go.
final class UpstreamAdmissions: Sendable {
    /// What wakes a queued fetch: a post to its loop's mailbox.
    struct Waiter: Sendable {
        let wake: @Sendable () -> Void
    }

    typealias Action = FetchAdmission<Waiter>.Action

    private let table = Locked<[String: FetchAdmission<Waiter>]>([:])

    func arrive(upstream: String, rule: FetchAdmissionRule, _ waiter: Waiter) -> Action {
        table.withLock { $0[upstream, default: FetchAdmission()].arrive(waiter, rule: rule) }
    }

    /// A fetch holding a place ended; the place goes to the first waiter, if any.
    func finished(upstream: String, rule: FetchAdmissionRule) {
        wake(table.withLock { $0[upstream, default: FetchAdmission()].finished(rule: rule) })
    }

    /// A waiter's queue timer fired: `refuse` if it still waited, else `none` (its wake is on
    /// the way).
    func timedOut(upstream: String, ticket: Int, rule: FetchAdmissionRule) -> Action {
        table.withLock { $0[upstream, default: FetchAdmission()].timedOut(ticket: ticket, rule: rule) }
    }

    /// A waiter's client went away.
    func left(upstream: String, ticket: Int, rule: FetchAdmissionRule) {
        wake(table.withLock { $0[upstream, default: FetchAdmission()].left(ticket: ticket, rule: rule) })
    }

    /// In flight and waiting, by upstream, for the metrics.
    var gauges: [String: (inFlight: Int, queued: Int)] {
        table.withLock { $0.mapValues { ($0.inFlight, $0.queueLength) } }
    }

    private func wake(_ action: Action) {
        if case .wake(let queued) = action { queued.waiter.wake() }
    }
}

/// A queued fetch handed to the loop that freed a place: held strongly, so the place handed to
/// it is never lost with it; read only once the wake runs on the fetch's own loop.
final class QueuedFetch: @unchecked Sendable {
    let fetch: UpstreamFetch
    init(_ fetch: UpstreamFetch) { self.fetch = fetch }
}
