import ReshapeStateMachines

/// The process's memory budget for requests in flight (`--max-inflight-bytes`), as pure
/// bookkeeping: the bytes each fetch is expected to need are reserved before it starts (its
/// route's recent sizes), corrected when its `Content-Length` comes and as its body grows, and
/// given back when its answer has been made. A fetch that does not fit waits in FIFO order;
/// one arriving while others wait queues behind them, whatever its size. The server keeps one
/// behind a lock shared by the loops; each waiter's loop runs its own timer.
///
/// With nothing reserved, a fetch always starts, even one larger than the budget: alone it
/// cannot be refused room that nobody else holds.
package struct InflightBudget<Waiter: Sendable>: Sendable {
    /// A fetch waiting for room, and what the driver needs to wake it.
    package struct Queued: Sendable {
        package let ticket: Int
        package let bytes: Int
        package let waiter: Waiter
    }

    package enum State: Sendable {
        /// Nobody waits: a fetch that fits starts at once.
        case open(used: Int)
        /// Fetches wait, in order, for room.
        case waiting(used: Int, queue: [Queued])
    }

    package enum StateName: String, CaseIterable, Sendable {
        case open, waiting
    }

    package enum Action: Sendable {
        /// The bytes are reserved: start the fetch.
        case start
        /// The fetch waits under `ticket` until woken or its timer fires.
        case wait(ticket: Int)
        /// Room was made: these waiters now hold their bytes; tell each on its loop.
        case wake([Queued])
        /// The waiter's time ran out: answer 503 `load-shed`; `woken` got room meanwhile (the
        /// one ahead of them left).
        case shed(woken: [Queued])
        case none
    }

    package let limit: Int
    package private(set) var state = State.open(used: 0)
    private var nextTicket = 0

    package init(limit: Int) {
        self.limit = limit
    }

    package var stateName: StateName {
        switch state {
        case .open: .open
        case .waiting: .waiting
        }
    }

    /// Bytes reserved now (`reshape_inflight_bytes`).
    package var used: Int {
        switch state {
        case .open(let used), .waiting(let used, _): used
        }
    }

    /// Fetches waiting for room (`reshape_inflight_waiting`).
    package var waiting: Int {
        if case .waiting(_, let queue) = state { queue.count } else { 0 }
    }

    private func fits(_ bytes: Int, used: Int) -> Bool { used == 0 || used + bytes <= limit }

    /// A fetch expected to need `bytes` asks to start.
    package mutating func reserve(_ bytes: Int, _ waiter: Waiter) -> Action {
        switch state {
        case .open(let used) where fits(bytes, used: used):
            state = .open(used: used + bytes)
            return .start
        case .open(let used):
            nextTicket += 1
            state = .waiting(used: used, queue: [Queued(ticket: nextTicket, bytes: bytes, waiter: waiter)])
            return .wait(ticket: nextTicket)
        case .waiting(let used, var queue):
            nextTicket += 1
            queue.append(Queued(ticket: nextTicket, bytes: bytes, waiter: waiter))
            state = .waiting(used: used, queue: queue)
            return .wait(ticket: nextTicket)
        }
    }

    /// A started fetch's bytes changed by `delta` (its `Content-Length` came, its body outgrew
    /// the estimate, or it ended and gave them back: negative). Room made goes to the waiters.
    package mutating func changed(by delta: Int) -> Action {
        switch state {
        case .open(let used):
            guard used + delta >= 0 else { impossible("changed by \(delta)", in: "open with \(used) used") }
            state = .open(used: used + delta)
            return .none
        case .waiting(let used, let queue):
            guard used + delta >= 0 else { impossible("changed by \(delta)", in: "waiting with \(used) used") }
            return admit(used: used + delta, queue: queue)
        }
    }

    /// Whether `bytes` more would pass the budget now (a transfer growing past its estimate
    /// pauses rather than grow, unless it holds the only bytes reserved).
    package func wouldPass(_ bytes: Int, holding: Int) -> Bool {
        used > holding && used + bytes > limit
    }

    /// A waiter's timer fired: shed if it still waits; nothing if room was made for it
    /// already (its wake is on the way).
    package mutating func timedOut(ticket: Int) -> Action {
        guard case .waiting(let used, var queue) = state,
            let index = queue.firstIndex(where: { $0.ticket == ticket })
        else { return .none }
        queue.remove(at: index)
        guard case .wake(let woken) = admit(used: used, queue: queue) else { return .shed(woken: []) }
        return .shed(woken: woken)
    }

    /// A waiting fetch's client went away: it leaves the queue (which may let the ones behind
    /// it in). One already woken gives its `bytes` back instead.
    package mutating func left(ticket: Int, bytes: Int) -> Action {
        guard case .waiting(let used, var queue) = state,
            let index = queue.firstIndex(where: { $0.ticket == ticket })
        else { return changed(by: -bytes) }
        queue.remove(at: index)
        return admit(used: used, queue: queue)
    }

    /// Lets the waiters in from the front while they fit.
    private mutating func admit(used: Int, queue: [Queued]) -> Action {
        var used = used
        var taken = 0
        while taken < queue.count, fits(queue[taken].bytes, used: used) {
            used += queue[taken].bytes
            taken += 1
        }
        let rest = Array(queue.dropFirst(taken))
        state = rest.isEmpty ? .open(used: used) : .waiting(used: used, queue: rest)
        return taken == 0 ? .none : .wake(Array(queue.prefix(taken)))
    }
}
