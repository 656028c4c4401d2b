import CCurl
import ReshapeProxy
import ReshapeStateMachines

// The memory budget in front of every fetch (behind its upstream's `max-in-flight`): the bytes
// its route's recent requests needed are reserved before it starts, or it waits, in order, for
// room another fetch gives back (on any loop: the wake comes through this loop's mailbox). A
// fetch that waits until just before its route's timeout is shed: 503 `load-shed`. A finished fetch's bytes pass to its request
// (`HeldBytes`), which holds them until its answer is written; what the request holds is
// told with each of its fetches that may wait.
extension UpstreamClient {
    func reserve(_ fetch: UpstreamFetch, in inflight: InflightBytes) {
        let held = fetch.heldBy
        let (action, sizing) = inflight.reserve(route: fetch.request.route, request: held?.id, held: held?.bytes ?? 0) {
            bytes in
            let client = LoopOwned(self)
            let waiting = QueuedFetch(fetch)
            let mailbox = self.mailbox
            return InflightBytes.Waiter {
                let posted = mailbox?.post { client.value.roomMade(waiting.fetch, bytes: bytes) } ?? false
                if !posted { inflight.changed(by: -bytes) }  // the loop is gone: the room must not be lost
            }
        }
        fetch.sizing = sizing
        let bytes = sizing.estimate
        switch action {
        case .start:
            fetch.reservation = .holding(bytes: bytes)
            begin(fetch, now: Clock.monotonicSeconds())
        case .wait(let ticket, _):
            let waited = Int(Clock.seconds(since: fetch.started) * 1000)
            let milliseconds = max(1, Self.budgetWaitMilliseconds(fetch.request) - waited)
            let timer = RouteTimer(loop: loop, milliseconds: milliseconds) {
                [unowned self] in
                self.budgetWaitEnded(fetch, ticket: ticket, inflight: inflight)
            }
            fetch.reservation = .waiting(ticket: ticket, bytes: bytes, timer: timer)
        case .wake, .shed, .none:
            impossible("reserve answered \(action)", in: "InflightBudget")
        }
    }

    /// How long a fetch may wait for room: until just before its route's timeout would answer
    /// (the fetch's own time less the margin it was given over the route's), less what it
    /// waited for a place.
    static func budgetWaitMilliseconds(_ request: UpstreamRequest) -> Int {
        max(1, request.timeoutMilliseconds - UpstreamRequestBuilder.routeTimeoutMarginMilliseconds - 10)
    }

    /// On this loop: room was made for `fetch`. Unless it was cancelled meanwhile (its leaving
    /// gave the bytes back), it goes on.
    func roomMade(_ fetch: UpstreamFetch, bytes: Int) {
        guard case .waiting(_, _, let timer) = fetch.reservation, !fetch.isDone else { return }
        timer.stop()
        fetch.reservation = .holding(bytes: bytes)
        begin(fetch, now: Clock.monotonicSeconds())
    }

    private func budgetWaitEnded(_ fetch: UpstreamFetch, ticket: Int, inflight: InflightBytes) {
        guard !fetch.isDone, inflight.timedOut(ticket: ticket) else { return }  // room came: its wake is on the way
        fetch.reservation = .none
        fetch.finish(
            .failure(
                .loadShed,
                message: "the server's memory budget for requests in flight (--max-inflight-bytes) had no room in time")
        )
    }

    /// In the transfer's write callback: the body needs `bytes` (`exact`: its `Content-Length`),
    /// and so the fetch its route's need per body byte times that. A body larger than those the
    /// estimate was made from grows the reservation to it; a known length needing under half of
    /// what is held gives the rest back. Anything else keeps the reservation as it is: sparing
    /// the lock is worth more than the difference. False pauses the transfer when the budget has
    /// no room for the growth, until `growthGranted`.
    func bodyNeeds(_ bytes: Int, exact: Bool, for fetch: UpstreamFetch, in inflight: InflightBytes) -> Bool {
        guard case .holding(let held) = fetch.reservation else { return true }
        let needed = fetch.sizing.need(forBody: bytes)
        guard needed > held, bytes > fetch.sizing.coveredBody else {
            if exact, needed < held / 2 {
                fetch.reservation = .holding(bytes: needed)
                inflight.changed(by: needed - held)
            }
            return true
        }
        let delta = needed - held
        let request = fetch.heldBy
        switch inflight.grow(
            by: delta, holding: held, request: request?.id, held: request?.bytes ?? 0,
            growthWaiter(fetch, delta: delta, inflight: inflight))
        {
        case .wait(let ticket, _):
            fetch.reservation = .paused(holding: held, ticket: ticket, bytes: delta)
            return false
        case .start, .wake, .shed, .none:
            fetch.reservation = .holding(bytes: needed)
            return true
        }
    }

    /// What wakes a transfer paused for `delta` more bytes, on this loop.
    private func growthWaiter(_ fetch: UpstreamFetch, delta: Int, inflight: InflightBytes) -> InflightBytes.Waiter {
        let client = LoopOwned(self)
        let paused = QueuedFetch(fetch)
        let mailbox = self.mailbox
        return InflightBytes.Waiter {
            let posted = mailbox?.post { client.value.growthGranted(paused.fetch) } ?? false
            if !posted { inflight.changed(by: -delta) }
        }
    }

    /// On this loop: the budget made room for a paused transfer's growth; it goes on. (Not
    /// from inside a curl callback: the wake comes through the mailbox.)
    func growthGranted(_ fetch: UpstreamFetch) {
        guard case .paused(let held, _, let delta) = fetch.reservation, !fetch.isDone else { return }
        fetch.reservation = .holding(bytes: held + delta)
        if let transfer = fetch.transfer { _ = reshape_easy_unpause(transfer.easy) }
    }
}
