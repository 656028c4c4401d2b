import ReshapeStateMachines

/// The process's memory budget for requests in flight (`--max-inflight-bytes`), as pure
/// bookkeeping: the bytes each fetch is expected to need (its body, the tape it is parsed into
/// and its share of the answer: `RecentSizes`) are reserved before it starts, corrected when
/// its `Content-Length` comes and as its body grows, and pass to its request when it ends,
/// which gives them back once its answer has been written to the client (or it ended without
/// one). A fetch that does not fit waits in FIFO order; one arriving while others wait queues
/// behind them, whatever its size. The server keeps one behind a lock shared by the loops;
/// each waiter's loop runs its own timer.
///
/// A transfer whose body would pass the budget waits the same way (`grow`), paused, holding
/// what it has. What a waiter holds cannot come back while it waits: a paused transfer's
/// reservation, and what its request holds from its finished fetches (a request with a fetch
/// in the queue is *blocked*; the budget learns what it holds when its first fetch queues, and
/// from `passed` while it stays blocked). A request whose fetch waits for a place among its
/// upstream's `max-in-flight` is blocked the same way (`heldWhileBlocked`): the places may be held
/// by fetches waiting here for the room it holds. So is a request whose answer waits behind an
/// earlier request's on its connection (`heldWhileBlocked` too): it cannot be written before that one.
/// When everything used is held so, nothing
/// running would ever give room back, and the first waiter goes, even past the budget: a fetch
/// alone, the follow-ups of a request alone, or requests that all wait for their next fetch.
package struct InflightBudget<Waiter: Sendable>: Sendable {
    /// A fetch waiting for room, and what the driver needs to wake it.
    package struct Queued: Sendable {
        package let ticket: Int
        /// What it waits for: a new fetch's estimate, or a paused transfer's growth.
        package let bytes: Int
        /// What it holds meanwhile: 0 for a new fetch, a paused transfer's reservation.
        package var holding = 0
        /// The request it is a fetch of; nil for a fetch no request holds bytes for.
        package var request: Int?
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
        /// The fetch waits under `ticket` until woken or its timer fires. What its request
        /// holds may have left nothing else that could give room back: `woken` are let in
        /// (tell each on its loop).
        case wait(ticket: Int, woken: [Queued])
        /// Room was made: these waiters now hold their bytes; tell each on its loop.
        case wake([Queued])
        /// The waiter's time ran out: answer 503 `load-shed`; `woken` got room meanwhile (the
        /// one ahead of them left).
        case shed(woken: [Queued])
        case none
    }

    /// A request with fetches in the queue or waiting for a place, or whose answer waits behind
    /// an earlier one: what it holds from its finished fetches, and how many of those wait.
    private struct Blocked: Sendable {
        var held: Int
        var waiters: Int
    }

    package let limit: Int
    package private(set) var state = State.open(used: 0)
    private var nextTicket = 0
    /// Requests with fetches in the queue or waiting for a place, by id.
    private var blocked: [Int: Blocked] = [:]
    /// What waiters hold (paused transfers' reservations, blocked requests' bytes): nothing
    /// that runs gives it back.
    package private(set) var heldByWaiters = 0

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

    /// Whether `bytes` more may be reserved: they fit, or all that is used is `stuck`, held by
    /// waiters.
    private func fits(_ bytes: Int, used: Int, stuck: Int) -> Bool { used == stuck || used + bytes <= limit }

    /// What waiters would hold if a fetch of `request`, which holds `held`, waited too.
    private func stuck(with request: Int?, held: Int) -> Int {
        guard let request, blocked[request] == nil else { return heldByWaiters }
        return heldByWaiters + held
    }

    /// A fetch expected to need `bytes` asks to start; `request`, which holds `held` from its
    /// finished fetches, is the one it is a fetch of. `waiter` is made only if it waits.
    package mutating func reserve(
        _ bytes: Int, request: Int? = nil, held: Int = 0, _ waiter: @autoclosure () -> Waiter
    ) -> Action {
        switch state {
        // Nobody waits here: were it to, it would hold what its request holds, beside the
        // requests waiting for a place.
        case .open(let used) where used + bytes <= limit || used == stuck(with: request, held: held):
            state = .open(used: used + bytes)
            return .start
        case .open(let used):
            let ticket = enqueue(bytes, holding: 0, request: request, held: held, waiter())
            state = .waiting(used: used, queue: [ticket])
            return .wait(ticket: ticket.ticket, woken: [])
        case .waiting(let used, let queue):
            // Behind the others; what its request holds may leave the first nothing to wait for.
            let ticket = enqueue(bytes, holding: 0, request: request, held: held, waiter())
            guard case .wake(let woken) = admit(used: used, queue: queue + [ticket]) else {
                return .wait(ticket: ticket.ticket, woken: [])
            }
            return .wait(ticket: ticket.ticket, woken: woken)
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

    /// A finished fetch's `bytes` passed to `request`, which holds them until its answer is
    /// written. Said only while the request has a fetch in the queue or waiting for a place:
    /// then they cannot come back before one of those goes, which may leave the first waiter
    /// nothing to wait for.
    package mutating func passed(_ bytes: Int, to request: Int) -> Action {
        guard var entry = blocked[request] else { return .none }
        entry.held += bytes
        blocked[request] = entry
        heldByWaiters += bytes
        guard case .waiting(let used, let queue) = state else { return .none }
        return admit(used: used, queue: queue)
    }

    /// What `request` holds (`held`) cannot come back until something outside the budget
    /// moves, and that may itself wait here for that very room: counted as held by a waiter, it
    /// may let the first go. Said when a fetch of it waits for a place among its upstream's
    /// `max-in-flight` (it reserves only once it has one), or when its answer waits on its
    /// connection behind an earlier request's, which has none yet (answers go out in order).
    /// Not said of an answer waiting for a slow client to read: that one comes back without
    /// the budget's help. `blockEnded` undoes it, once per time it was said.
    package mutating func heldWhileBlocked(request: Int, held: Int) -> Action {
        block(request, held: held)
        guard case .waiting(let used, let queue) = state else { return .none }
        return admit(used: used, queue: queue)
    }

    /// The fetch that waited for a place has one, or its answer is written (or never will be).
    package mutating func blockEnded(request: Int) {
        unblock(request)
    }

    /// `request` gives back the `bytes` it held (its answer is written, or it ended without
    /// one).
    package mutating func released(_ bytes: Int, by request: Int) -> Action {
        if var entry = blocked[request] {
            heldByWaiters -= entry.held
            entry.held = 0
            blocked[request] = entry
        }
        return changed(by: -bytes)
    }

    /// A running transfer holding `holding` needs `delta` more (its `Content-Length` came, or
    /// its body grew): `start` (go on, reserved) if they fit or nothing that runs holds bytes
    /// but itself, else `wait`: it pauses, holding what it has, until a `wake`. Its request
    /// holds `held` from its finished fetches.
    package mutating func grow(
        by delta: Int, holding: Int, request: Int? = nil, held: Int = 0, _ waiter: @autoclosure () -> Waiter
    ) -> Action {
        let (used, queue): (Int, [Queued])
        switch state {
        case .open(let open): (used, queue) = (open, [])
        case .waiting(let waiting, let waiters): (used, queue) = (waiting, waiters)
        }
        if used + delta <= limit || used == stuck(with: request, held: held) + holding {
            state = queue.isEmpty ? .open(used: used + delta) : .waiting(used: used + delta, queue: queue)
            return .start
        }
        // It waits: nothing it holds comes back meanwhile, and something that runs still holds bytes.
        let ticket = enqueue(delta, holding: holding, request: request, held: held, waiter())
        state = .waiting(used: used, queue: queue + [ticket])
        return .wait(ticket: ticket.ticket, woken: [])
    }

    /// A waiter's timer fired: shed if it still waits; nothing if room was made for it
    /// already (its wake is on the way).
    package mutating func timedOut(ticket: Int) -> Action {
        guard case .waiting(let used, var queue) = state,
            let index = queue.firstIndex(where: { $0.ticket == ticket })
        else { return .none }
        dequeued(queue.remove(at: index))
        guard case .wake(let woken) = admit(used: used, queue: queue) else { return .shed(woken: []) }
        return .shed(woken: woken)
    }

    /// A waiting fetch's client went away: it leaves the queue (which may let the ones behind
    /// it in). One already woken gives its `bytes` back instead.
    package mutating func left(ticket: Int, bytes: Int) -> Action {
        guard case .waiting(let used, var queue) = state,
            let index = queue.firstIndex(where: { $0.ticket == ticket })
        else { return changed(by: -bytes) }
        dequeued(queue.remove(at: index))
        return admit(used: used, queue: queue)
    }

    /// A new waiter, counted with what it and its request hold.
    private mutating func enqueue(
        _ bytes: Int, holding: Int, request: Int?, held: Int, _ waiter: Waiter
    ) -> Queued {
        nextTicket += 1
        heldByWaiters += holding
        if let request { block(request, held: held) }
        return Queued(ticket: nextTicket, bytes: bytes, holding: holding, request: request, waiter: waiter)
    }

    /// A waiter left the queue: what it holds, and its request's bytes once none of its
    /// fetches waits, may come back again.
    private mutating func dequeued(_ queued: Queued) {
        heldByWaiters -= queued.holding
        if let request = queued.request { unblock(request) }
    }

    /// One more fetch of `request`, which holds `held`, waits: here or for a place.
    private mutating func block(_ request: Int, held: Int) {
        if var entry = blocked[request] {
            entry.waiters += 1
            blocked[request] = entry
        } else {
            blocked[request] = Blocked(held: held, waiters: 1)
            heldByWaiters += held
        }
    }

    /// One fetch of `request` waits no more; once none does, what it holds may come back.
    private mutating func unblock(_ request: Int) {
        guard var entry = blocked[request] else { return }
        entry.waiters -= 1
        if entry.waiters > 0 {
            blocked[request] = entry
        } else {
            blocked[request] = nil
            heldByWaiters -= entry.held
        }
    }

    /// Lets the waiters in from the front while they fit.
    private mutating func admit(used: Int, queue: [Queued]) -> Action {
        var used = used
        var taken = 0
        while taken < queue.count, fits(queue[taken].bytes, used: used, stuck: heldByWaiters) {
            used += queue[taken].bytes
            dequeued(queue[taken])
            taken += 1
        }
        let rest = Array(queue.dropFirst(taken))
        state = rest.isEmpty ? .open(used: used) : .waiting(used: used, queue: rest)
        return taken == 0 ? .none : .wake(Array(queue.prefix(taken)))
    }
}
