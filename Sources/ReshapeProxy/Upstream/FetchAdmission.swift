import ReshapeRules
import ReshapeStateMachines

/// An upstream's `max-in-flight` and `queue`, as the rules say at an event (a reload may
/// change them between two).
package struct FetchAdmissionRule: Sendable, Equatable {
    package var maxInFlight: Int
    package var queue: UpstreamQueueRule?

    package init(maxInFlight: Int, queue: UpstreamQueueRule?) {
        self.maxInFlight = maxInFlight
        self.queue = queue
    }

    /// What a refused fetch's `Retry-After` says: the queue's timeout in whole seconds (by
    /// then a fetch queued now has either started or been refused), at least 1.
    package var retryAfterSeconds: Int { max(1, ((queue?.timeoutMilliseconds ?? 0) + 999) / 1000) }
}

/// Which fetches to one upstream may start, across every worker of the process: at most the
/// upstream's `max-in-flight` at once, the ones beyond it waiting in a FIFO of its
/// `queue.size`, the rest refused. Pure bookkeeping; the server keeps one per limited upstream
/// behind a lock, shared by the loops, and each waiter's loop runs its own queue timer.
///
/// A fetch holds its place from its start to its end, its retries and redirects included
/// (they count as fetches and never add to what is in flight). A freed place goes straight to
/// the first waiter (`wake`), so the count does not drop and rise again while one waits.
package struct FetchAdmission<Waiter: Sendable>: Sendable {
    package typealias Rule = FetchAdmissionRule

    /// A fetch waiting for a place, and what the driver needs to wake it.
    package struct Queued: Sendable {
        package let ticket: Int
        package let waiter: Waiter
    }

    package enum State: Sendable {
        /// Fewer than `max-in-flight` fetches hold a place and nobody waits: one starts at once.
        case admitting(inFlight: Int)
        /// `max-in-flight` (or, after a reload lowered it, more) hold a place; new fetches
        /// wait in `queue`, in their order.
        case saturated(inFlight: Int, queue: [Queued])
    }

    package enum StateName: String, CaseIterable, Sendable {
        case admitting, saturated
    }

    /// Why a fetch is refused (503 `upstream-saturated`).
    package enum Refusal: Sendable, Equatable {
        /// No place free and the upstream has no `queue`.
        case noQueue
        /// No place free and `queue.size` fetches already wait.
        case queueFull
        /// It waited `queue.timeout` without a place freeing.
        case timedOut
    }

    package enum Action: Sendable {
        /// The fetch holds a place: start it.
        case start
        /// The fetch waits under `ticket`: its loop starts the queue timer and waits for `wake`.
        case wait(ticket: Int)
        /// Answer the fetch 503 with `Retry-After: retryAfterSeconds`.
        case refuse(Refusal, retryAfterSeconds: Int)
        /// A place freed and is now this waiter's: tell it on its loop.
        case wake(Queued)
        /// Nothing to do.
        case none
    }

    package private(set) var state = State.admitting(inFlight: 0)
    private var nextTicket = 0

    package init() {}

    package var stateName: StateName {
        switch state {
        case .admitting: .admitting
        case .saturated: .saturated
        }
    }

    /// Fetches holding a place (`reshape_upstream_in_flight`).
    package var inFlight: Int {
        switch state {
        case .admitting(let inFlight), .saturated(let inFlight, _): inFlight
        }
    }

    /// Fetches waiting (`reshape_upstream_queue_length`).
    package var queueLength: Int {
        if case .saturated(_, let queue) = state { queue.count } else { 0 }
    }

    /// A fetch asks to start.
    package mutating func arrive(_ waiter: Waiter, rule: Rule) -> Action {
        switch state {
        case .admitting(let inFlight) where inFlight < rule.maxInFlight:
            state = place(inFlight + 1, rule: rule)
            return .start
        case .saturated(let inFlight, let queue) where queue.isEmpty && inFlight < rule.maxInFlight:
            // A reload raised the limit.
            state = place(inFlight + 1, rule: rule)
            return .start
        case .admitting(let inFlight):
            // A reload lowered the limit below what is in flight.
            state = .saturated(inFlight: inFlight, queue: [])
            return arrive(waiter, rule: rule)
        case .saturated(let inFlight, var queue):
            guard let size = rule.queue?.size else {
                return .refuse(.noQueue, retryAfterSeconds: rule.retryAfterSeconds)
            }
            guard queue.count < size else { return .refuse(.queueFull, retryAfterSeconds: rule.retryAfterSeconds) }
            nextTicket += 1
            queue.append(Queued(ticket: nextTicket, waiter: waiter))
            state = .saturated(inFlight: inFlight, queue: queue)
            return .wait(ticket: nextTicket)
        }
    }

    /// A fetch holding a place ended (answered, failed, or cancelled): the place goes to the
    /// first waiter, or is free.
    package mutating func finished(rule: Rule) -> Action {
        switch state {
        case .admitting(let inFlight):
            guard inFlight > 0 else { impossible("finished", in: "admitting with none in flight") }
            state = .admitting(inFlight: inFlight - 1)
            return .none
        case .saturated(let inFlight, var queue):
            guard inFlight > 0 else { impossible("finished", in: "saturated with none in flight") }
            if !queue.isEmpty, inFlight <= rule.maxInFlight {
                let first = queue.removeFirst()
                state = .saturated(inFlight: inFlight, queue: queue)
                return .wake(first)
            }
            state = queue.isEmpty ? place(inFlight - 1, rule: rule) : .saturated(inFlight: inFlight - 1, queue: queue)
            return .none
        }
    }

    /// A waiter's queue timer fired: refused if it still waits; if a place was handed to it
    /// already (its `wake` is on the way to its loop), it starts when that arrives.
    package mutating func timedOut(ticket: Int, rule: Rule) -> Action {
        guard remove(ticket) else { return .none }
        return .refuse(.timedOut, retryAfterSeconds: rule.retryAfterSeconds)
    }

    /// A waiting fetch's client went away: it leaves the queue at once. If a place was handed
    /// to it already, the place passes on as if it had finished.
    package mutating func left(ticket: Int, rule: Rule) -> Action {
        remove(ticket) ? .none : finished(rule: rule)
    }

    /// Takes `ticket` out of the queue; false when it is not there (it was woken).
    private mutating func remove(_ ticket: Int) -> Bool {
        guard case .saturated(let inFlight, var queue) = state,
            let index = queue.firstIndex(where: { $0.ticket == ticket })
        else { return false }
        queue.remove(at: index)
        state = .saturated(inFlight: inFlight, queue: queue)
        return true
    }

    /// The state for `inFlight` places held and nobody waiting.
    private func place(_ inFlight: Int, rule: Rule) -> State {
        inFlight < rule.maxInFlight ? .admitting(inFlight: inFlight) : .saturated(inFlight: inFlight, queue: [])
    }
}
