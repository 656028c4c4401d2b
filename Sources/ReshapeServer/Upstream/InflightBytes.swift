import ReshapeProxy

/// The process's memory budget for requests in flight (`--max-inflight-bytes`), shared by the
/// worker loops behind one lock, and each route's recent body sizes (its fetches' estimates).
/// Room made on one loop wakes a waiter through its own loop's mailbox, after the lock is let go.
final class InflightBytes: Sendable {
    /// What wakes a waiting fetch: a post to its loop's mailbox.
    struct Waiter: Sendable {
        let wake: @Sendable () -> Void
    }

    typealias Action = InflightBudget<Waiter>.Action

    private let state: Locked<(budget: InflightBudget<Waiter>, recent: [String: RecentSizes])>

    init(limit: Int) {
        state = Locked((InflightBudget(limit: limit), [:]))
    }

    var limit: Int { state.withLock { $0.budget.limit } }

    /// What a fetch of `route` is expected to need before its headers come.
    func estimate(route: String) -> Int {
        state.withLock { $0.recent[route]?.estimate ?? RecentSizes.unseen }
    }

    func reserve(_ bytes: Int, _ waiter: Waiter) -> Action {
        state.withLock { $0.budget.reserve(bytes, waiter) }
    }

    /// A running transfer holding `holding` needs `delta` more: `start` (go on) or `wait`
    /// (paused until its waiter is woken).
    func grow(by delta: Int, holding: Int, _ waiter: Waiter) -> Action {
        state.withLock { $0.budget.grow(by: delta, holding: holding, waiter) }
    }

    /// A started fetch's bytes changed by `delta`.
    func changed(by delta: Int) {
        guard delta != 0 else { return }
        wake(state.withLock { $0.budget.changed(by: delta) })
    }

    /// A fetch of `route` that held `reserved` is over; its body was `actual` bytes.
    func finished(route: String, reserved: Int, actual: Int?) {
        wake(
            state.withLock { state in
                if let actual { state.recent[route, default: RecentSizes()].record(actual) }
                return state.budget.changed(by: -reserved)
            })
    }

    /// A waiter's time ran out: true when it is shed (else its wake is on the way).
    func timedOut(ticket: Int) -> Bool {
        let action = state.withLock { $0.budget.timedOut(ticket: ticket) }
        guard case .shed(let woken) = action else { return false }
        for queued in woken { queued.waiter.wake() }
        return true
    }

    func left(ticket: Int, bytes: Int) {
        wake(state.withLock { $0.budget.left(ticket: ticket, bytes: bytes) })
    }

    /// Bytes reserved and fetches waiting, for the metrics.
    var gauges: (used: Int, waiting: Int) {
        state.withLock { ($0.budget.used, $0.budget.waiting) }
    }

    private func wake(_ action: Action) {
        if case .wake(let woken) = action { for queued in woken { queued.waiter.wake() } }
    }
}
