import ReshapeProxy
import ReshapeStateMachines

/// One fetch and its attempts: the transfer in flight, or the timer of a retry's wait. The
/// decisions are `UpstreamHealth`'s; this only remembers what is running, so a cancel stops it.
final class UpstreamFetch {
    /// What is running for the fetch now.
    enum Phase {
        /// No attempt out: before the first, or while an attempt's end is being decided.
        case between
        case transferring(UpstreamTransfer)
        /// A retry's wait; `last` is the result given over if no retry follows.
        case waitingToRetry(RouteTimer, last: UpstreamResult)
        /// Completed or cancelled: nothing runs, and the completion never runs again.
        case done
    }

    /// Where the fetch stands with its upstream's `max-in-flight`.
    enum Place {
        /// The upstream has no `max-in-flight`: nothing to hold or give back.
        case unlimited
        /// Queued under `ticket`; the timer refuses it after the queue's timeout.
        case waiting(ticket: Int, timer: RouteTimer)
        /// It holds one of the upstream's places until it ends.
        case holding
        /// Given back, or refused: nothing is held.
        case none

        var isWaiting: Bool { if case .waiting = self { true } else { false } }
    }

    /// Where the fetch stands with the process's memory budget (`--max-inflight-bytes`).
    enum Reservation {
        /// No budget, or none asked for yet.
        case none
        /// Waiting under `ticket` for `bytes` of room; the timer sheds it.
        case waiting(ticket: Int, bytes: Int, timer: RouteTimer)
        /// `bytes` are reserved; once the fetch is over, they pass to its request (`heldBy`)
        /// or are given back.
        case holding(bytes: Int)
        /// Its transfer is paused, holding `holding`, until `bytes` more are granted (`ticket`).
        case paused(holding: Int, ticket: Int, bytes: Int)

        /// In the budget's queue: waiting to start, or paused.
        var isQueued: Bool {
            switch self {
            case .waiting, .paused: true
            case .none, .holding: false
            }
        }
    }

    let request: UpstreamRequest
    var plan: UpstreamHealth.Fetch
    private(set) var phase = Phase.between
    var place = Place.unlimited {
        // While it waits for a place, what its request holds is stuck too: the budget counts
        // it as a waiter's, since the places may be held by fetches waiting for that room.
        didSet {
            guard let heldBy, let inflight, oldValue.isWaiting != place.isWaiting else { return }
            if place.isWaiting {
                heldBy.waiting += 1
                inflight.heldWhileBlocked(request: heldBy.id, held: heldBy.bytes)
            } else {
                heldBy.waiting -= 1
                inflight.blockEnded(request: heldBy.id)
            }
        }
    }
    var reservation = Reservation.none {
        // The request counts its fetches in the budget's queue: while one waits, what it holds is stuck.
        didSet {
            guard let heldBy, oldValue.isQueued != reservation.isQueued else { return }
            heldBy.waiting += reservation.isQueued ? 1 : -1
        }
    }
    /// The request whose fetch this is, which holds its bytes once it ends; nil when no
    /// request does (a key set's fetch, or no budget), or once it ended.
    private(set) var heldBy: HeldBytes?
    /// What its route's recent requests needed, which its reservation is corrected by once the
    /// body's size is known.
    var sizing = RecentSizes.unseenSizing
    /// The budget its reservation is in; nil: none is kept.
    let inflight: InflightBytes?
    /// Where a place is given back; nil when the upstream has no `max-in-flight`.
    let admissions: UpstreamAdmissions?
    private let completion: (UpstreamResult, Double) -> Void
    let started = Clock.now()

    init(
        request: UpstreamRequest, plan: UpstreamHealth.Fetch, admissions: UpstreamAdmissions? = nil,
        inflight: InflightBytes? = nil, heldBy: HeldBytes? = nil,
        completion: @escaping (UpstreamResult, Double) -> Void
    ) {
        self.request = request
        self.inflight = inflight
        self.heldBy = inflight == nil ? nil : heldBy
        self.admissions = request.admission == nil ? nil : admissions
        self.plan = plan
        self.completion = completion
    }

    var isDone: Bool { if case .done = phase { true } else { false } }

    /// The transfer in flight, if one is.
    var transfer: UpstreamTransfer? { if case .transferring(let transfer) = phase { transfer } else { nil } }

    var phaseName: String {
        switch phase {
        case .between: "between"
        case .transferring: "transferring"
        case .waitingToRetry: "waitingToRetry"
        case .done: "done"
        }
    }

    /// The request for one attempt, given `timeoutMilliseconds` of what is left: to the URL
    /// the last redirect named, if one was followed.
    func attemptRequest(timeoutMilliseconds: Int) -> UpstreamRequest {
        var attempt = request
        attempt.url = plan.url
        attempt.timeoutMilliseconds = max(1, min(request.timeoutMilliseconds, timeoutMilliseconds))
        attempt.connectTimeoutMilliseconds = min(request.connectTimeoutMilliseconds, attempt.timeoutMilliseconds)
        return attempt
    }

    func transferStarted(_ transfer: UpstreamTransfer) {
        guard case .between = phase else { impossible("transferStarted", in: phaseName) }
        phase = .transferring(transfer)
    }

    /// The transfer in flight ended; what follows is being decided.
    func transferEnded() {
        guard case .transferring = phase else { impossible("transferEnded", in: phaseName) }
        phase = .between
    }

    func waitToRetry(_ timer: RouteTimer, last: UpstreamResult) {
        guard case .between = phase else { impossible("waitToRetry", in: phaseName) }
        phase = .waitingToRetry(timer, last: last)
    }

    /// The wait is over: the last result, for a `finish` that may follow.
    func retryDue() -> UpstreamResult {
        guard case .waitingToRetry(_, let last) = phase else { impossible("retryDue", in: phaseName) }
        phase = .between
        return last
    }

    /// Runs the completion with `result`, once. What the fetch reserved passes to its
    /// request first, which gives it back once its answer is written.
    func finish(_ result: UpstreamResult) {
        guard !isDone else { return }
        phase = .done
        givePlaceBack()
        if let heldBy, case .holding(let bytes) = reservation {
            reservation = .none
            heldBy.take(bytes)
        }
        completion(result, Clock.seconds(since: started))
        // A fetch of no request gives its reservation back.
        giveBytesBack()
    }

    /// Gives the fetch's reservation back, or leaves the budget's queue.
    private func giveBytesBack() {
        guard let inflight else { return }
        switch reservation {
        case .holding(let bytes):
            inflight.changed(by: -bytes)
        case .waiting(let ticket, let bytes, let timer):
            timer.stop()
            inflight.left(ticket: ticket, bytes: bytes)
        case .paused(let holding, let ticket, let bytes):
            inflight.left(ticket: ticket, bytes: bytes)
            inflight.changed(by: -holding)
        case .none:
            break
        }
        reservation = .none
        heldBy = nil
    }

    /// Ends what the fetch has with its upstream's `max-in-flight`: the place it holds goes to
    /// the next waiter, or it leaves the queue (at once: its client went away).
    private func givePlaceBack() {
        defer { if case .unlimited = place {} else { place = .none } }
        guard let admissions, let rule = request.admission else { return }
        switch place {
        case .holding:
            admissions.finished(upstream: request.upstreamName, rule: rule)
        case .waiting(let ticket, let timer):
            timer.stop()
            admissions.left(upstream: request.upstreamName, ticket: ticket, rule: rule)
        case .unlimited, .none:
            break
        }
    }

    /// Stops what runs (a retry's timer); returns the transfer in flight, for the client to
    /// remove. The completion never runs.
    func cancel() -> UpstreamTransfer? {
        defer { phase = .done }
        if !isDone {
            givePlaceBack()
            giveBytesBack()
        }
        switch phase {
        case .transferring(let transfer): return transfer
        case .waitingToRetry(let timer, _): timer.stop()
        case .between, .done: break
        }
        return nil
    }
}
