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

    let request: UpstreamRequest
    var plan: UpstreamHealth.Fetch
    private(set) var phase = Phase.between
    private let completion: (UpstreamResult, Double) -> Void
    let started = Clock.now()

    init(request: UpstreamRequest, plan: UpstreamHealth.Fetch, completion: @escaping (UpstreamResult, Double) -> Void) {
        self.request = request
        self.plan = plan
        self.completion = completion
    }

    var isDone: Bool { if case .done = phase { true } else { false } }

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

    /// Runs the completion with `result`, once.
    func finish(_ result: UpstreamResult) {
        guard !isDone else { return }
        phase = .done
        completion(result, Clock.seconds(since: started))
    }

    /// Stops what runs (a retry's timer); returns the transfer in flight, for the client to
    /// remove. The completion never runs.
    func cancel() -> UpstreamTransfer? {
        defer { phase = .done }
        switch phase {
        case .transferring(let transfer): return transfer
        case .waitingToRetry(let timer, _): timer.stop()
        case .between, .done: break
        }
        return nil
    }
}
