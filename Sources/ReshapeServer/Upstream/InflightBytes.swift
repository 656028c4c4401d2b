import ReshapeProxy
import Synchronization

/// The process's memory budget for requests in flight (`--max-inflight-bytes`), shared by the
/// worker loops behind one lock, and each route's recent sizes (its fetches' estimates). A
/// fetch takes the lock to reserve, and its request once more to give the bytes back after
/// its answer is written; only a body that outgrows its reservation, or turns out far
/// smaller, takes it in between, and a fetch that ends while another of its request waits
/// (`passed`). Room made on one loop wakes a waiter through its own loop's mailbox, after the
/// lock is let go.
final class InflightBytes: Sendable {
    /// What wakes a waiting fetch: a post to its loop's mailbox.
    struct Waiter: Sendable {
        let wake: @Sendable () -> Void
    }

    typealias Action = InflightBudget<Waiter>.Action

    /// What a request of a route took, for the route's next estimates (`RecentSizes.record`).
    struct Sizes {
        let need: Int
        let bodies: Int
        let fetches: Int
    }

    private let state: Locked<(budget: InflightBudget<Waiter>, recent: [String: RecentSizes])>
    /// The last request id handed out (`newRequest`).
    private let lastRequest = Atomic<Int>(0)

    init(limit: Int) {
        state = Locked((InflightBudget(limit: limit), [:]))
    }

    var limit: Int { state.withLock { $0.budget.limit } }

    /// An id for a request's bytes in the budget (`HeldBytes`), unique in the process.
    func newRequest() -> Int { lastRequest.add(1, ordering: .relaxed).newValue }

    /// A fetch of `route` asks for what its route's recent requests say it will need: `start`,
    /// or `wait` (the waiter is made, for the bytes asked, only then). `request`: the request
    /// it is a fetch of, which holds `held` of its finished fetches. Also returned: the sizing
    /// the bytes asked came from, to correct the reservation by once the body's size is known.
    func reserve(route: String, request: Int?, held: Int, _ waiter: (Int) -> Waiter) -> (
        action: Action, sizing: RecentSizes.Sizing
    ) {
        let (action, sizing) = state.withLock { state in
            let sizing = state.recent[route]?.sizing ?? RecentSizes.unseenSizing
            return (
                state.budget.reserve(sizing.estimate, request: request, held: held, waiter(sizing.estimate)), sizing
            )
        }
        if case .wait(_, let woken) = action { wake(.wake(woken)) }
        return (action, sizing)
    }

    /// A running transfer holding `holding` needs `delta` more: `start` (go on) or `wait`
    /// (paused until its waiter is woken). Its request holds `held`.
    func grow(
        by delta: Int, holding: Int, request: Int?, held: Int, _ waiter: @autoclosure () -> Waiter
    ) -> Action {
        let action = state.withLock {
            $0.budget.grow(by: delta, holding: holding, request: request, held: held, waiter())
        }
        if case .wait(_, let woken) = action { wake(.wake(woken)) }
        return action
    }

    /// A finished fetch's `bytes` passed to `request`, one of whose fetches waits.
    func passed(_ bytes: Int, to request: Int) {
        wake(state.withLock { $0.budget.passed(bytes, to: request) })
    }

    /// What `request` holds (`held`) cannot come back for now: a fetch of it waits for a place
    /// among its upstream's `max-in-flight`, or its answer waits behind an earlier request's
    /// on its connection (`InflightBudget.heldWhileBlocked`); `blockEnded` when that is over.
    func heldWhileBlocked(request: Int, held: Int) {
        wake(state.withLock { $0.budget.heldWhileBlocked(request: request, held: held) })
    }

    func blockEnded(request: Int) {
        state.withLock { $0.budget.blockEnded(request: request) }
    }

    /// A started fetch's bytes changed by `delta`.
    func changed(by delta: Int) {
        guard delta != 0 else { return }
        wake(state.withLock { $0.budget.changed(by: delta) })
    }

    /// `bytes` that `request`, of `route`, held are given back; `sizes`, when its answer was
    /// made from upstream bodies, teach the route's next estimates.
    func release(_ bytes: Int, request: Int, route: String, sizes: Sizes?) {
        guard bytes != 0 || sizes != nil else { return }
        wake(
            state.withLock { state in
                if let sizes {
                    state.recent[route, default: RecentSizes()].record(
                        need: sizes.need, bodies: sizes.bodies, fetches: sizes.fetches)
                }
                return state.budget.released(bytes, by: request)
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
