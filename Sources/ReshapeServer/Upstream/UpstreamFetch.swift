import ReshapeProxy

/// One fetch and its attempts: the transfer in flight, or the timer of a retry's wait. The
/// decisions are `UpstreamHealth`'s; this only remembers what is running, so a cancel stops it.
final class UpstreamFetch {
    let request: UpstreamRequest
    var plan: UpstreamHealth.Fetch
    /// Cleared when the fetch is cancelled, so it never runs.
    var completion: ((UpstreamResult, Double) -> Void)?
    var transfer: UpstreamTransfer?
    var retryTimer: RouteTimer?
    /// The last attempt's result, given over when no retry follows.
    var lastResult: UpstreamResult?
    let started = Clock.now()

    init(request: UpstreamRequest, plan: UpstreamHealth.Fetch, completion: @escaping (UpstreamResult, Double) -> Void) {
        self.request = request
        self.plan = plan
        self.completion = completion
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
}
