import ReshapeStateMachines

/// The process's memory budget for requests in flight (`--max-inflight-bytes`), as pure
/// bookkeeping: the bytes each fetch is expected to need (its body, the tape it is parsed into
/// and its share of the answer: `RecentSizes`) are reserved before it starts, corrected when
/// its `Content-Length` comes and as its body grows, and given back when its request's answer
/// has been written to the client (or the request ended without one). A fetch that does not
/// fit waits in FIFO order; one arriving while others wait queues behind them, whatever its
/// size. The server keeps one behind a lock shared by the loops; each waiter's loop runs its
/// own timer.
///
/// A transfer whose body would pass the budget waits the same way (`grow`), paused, holding
/// what it has. With nothing held by a fetch that runs (none, or every holder paused), the
/// first waiter always goes, even one larger than the budget: nobody else would give room back.
package struct InflightBudget<Waiter: Sendable>: Sendable {
    /// A fetch waiting for room, and what the driver needs to wake it.
    package struct Queued: Sendable {
        package let ticket: Int
        /// What it waits for: a new fetch's estimate, or a paused transfer's growth.
        package let bytes: Int
        /// What it holds meanwhile: 0 for a new fetch, a paused transfer's reservation.
        package var holding = 0
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

    /// Whether `bytes` more may be reserved: they fit, or no fetch that runs holds any (all
    /// that is held is `paused`'s, waiting here).
    private func fits(_ bytes: Int, used: Int, paused: Int) -> Bool { used == paused || used + bytes <= limit }

    private static func paused(_ queue: [Queued]) -> Int { queue.reduce(0) { $0 + $1.holding } }

    /// A fetch expected to need `bytes` asks to start; `waiter` is made only if it waits.
    package mutating func reserve(_ bytes: Int, _ waiter: @autoclosure () -> Waiter) -> Action {
        switch state {
        case .open(let used) where fits(bytes, used: used, paused: 0):
            state = .open(used: used + bytes)
            return .start
        case .open(let used):
            nextTicket += 1
            state = .waiting(used: used, queue: [Queued(ticket: nextTicket, bytes: bytes, waiter: waiter())])
            return .wait(ticket: nextTicket)
        case .waiting(let used, var queue):
            nextTicket += 1
            queue.append(Queued(ticket: nextTicket, bytes: bytes, waiter: waiter()))
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

    /// A running transfer holding `holding` needs `delta` more (its `Content-Length` came, or
    /// its body grew): `start` (go on, reserved) if they fit or no other running fetch holds
    /// bytes, else `wait`: it pauses, holding what it has, until a `wake`.
    package mutating func grow(by delta: Int, holding: Int, _ waiter: @autoclosure () -> Waiter) -> Action {
        let (used, queue): (Int, [Queued])
        switch state {
        case .open(let open): (used, queue) = (open, [])
        case .waiting(let waiting, let waiters): (used, queue) = (waiting, waiters)
        }
        if fits(delta, used: used, paused: Self.paused(queue) + holding) {
            state = queue.isEmpty ? .open(used: used + delta) : .waiting(used: used + delta, queue: queue)
            return .start
        }
        nextTicket += 1
        state = .waiting(
            used: used, queue: queue + [Queued(ticket: nextTicket, bytes: delta, holding: holding, waiter: waiter())])
        return .wait(ticket: nextTicket)
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
        var paused = Self.paused(queue)
        var taken = 0
        while taken < queue.count, fits(queue[taken].bytes, used: used, paused: paused) {
            used += queue[taken].bytes
            paused -= queue[taken].holding
            taken += 1
        }
        let rest = Array(queue.dropFirst(taken))
        state = rest.isEmpty ? .open(used: used) : .waiting(used: used, queue: rest)
        return taken == 0 ? .none : .wake(Array(queue.prefix(taken)))
    }
}
