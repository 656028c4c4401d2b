import ReshapeRules

/// What the metrics, the access log and the trace keep of a request that is over, as one value: the
/// lifecycle makes it (`RequestLifecycle.Action.record`, `.unsubscribe`, `.cancel`) and the
/// server records it, so that no metric is written from inside the lifecycle's events.
package struct FinishedRequest: Sendable {
    /// How the request ended, as the request counters see it.
    package enum Outcome: Sendable, Equatable {
        /// Answered (or its stream ended) after `seconds`: its row in the request counters.
        case answered(status: Int, seconds: Double)
        /// The client went away before its answer: it only leaves the requests in flight.
        case cancelled
        /// A refresh no client asked for: not a request in the metrics or the log.
        case background
    }

    package var outcome: Outcome
    /// The route that answered; nil when none did (counted as `-`).
    package var route: String?
    /// The answer's `Reshape-Cache` value, counted by route.
    package var cacheStatus: String?
    /// What the answer dropped, redacted as the access log is, for the status page.
    package var dropped: [DroppedElement] = []
    /// The request's access-log line, when logging is on.
    package var accessLogLine: [UInt8]?
    /// The request's server span, when its trace is recorded.
    package var span: Span?
    /// Its answer was kept out of the cache by its upstreams' directives.
    package var cacheSkip: CacheSkip?
    /// How its bearer token was judged, on an `auth` route: `reshape_auth_total`'s labels.
    package var auth: AuthCheck?
    /// Why it was shed (`loop-lag`), when it was.
    package var shedReason: String?
    /// The memory the tapes of its upstream bodies held (`RouteExchange.tapeBytes`), for the
    /// memory budget's estimates of its route.
    package var tapeBytes = 0

    /// One bearer token check: the verifier and its result label.
    package struct AuthCheck: Sendable, Equatable {
        package var verifier: String
        package var result: String
    }
    /// A request a rate limit refused: `reshape_rate_limited_total`'s labels.
    package var rateLimited: RateLimited?
    /// Shared rate-limit checks Redis did not answer in time, decided by the process's table.
    package var limitFallbacks = 0

    /// The route and the policy of a 429.
    package struct RateLimited: Sendable, Equatable {
        package var route: String
        package var policy: String
    }
    /// A CORS preflight's route and result (`CORSPreflight.Result`).
    package var corsPreflight: (route: String, result: String)?

    /// A `cache:` route's answer its upstreams' `Cache-Control` kept out of the cache.
    package struct CacheSkip: Sendable, Equatable {
        package var route: String
        /// `no-store`, `private` or `no-cache`.
        package var reason: String
        /// The log line that says so, the first time for the route and rule set; nil after.
        package var notice: String?
    }

    /// Writes it into `metrics` (the access-log line is the server's to write).
    package func record(in metrics: Metrics) {
        if let route, !dropped.isEmpty { metrics.recordDropped(route: route, elements: dropped) }
        if let cacheSkip { metrics.recordCacheSkipped(route: cacheSkip.route, reason: cacheSkip.reason) }
        if let auth { metrics.recordAuth(verifier: auth.verifier, result: auth.result) }
        if let shedReason { metrics.recordShed(reason: shedReason) }
        if let rateLimited { metrics.recordRateLimited(route: rateLimited.route, policy: rateLimited.policy) }
        if limitFallbacks > 0 { metrics.recordLimitFallback(limitFallbacks) }
        if let corsPreflight { metrics.recordCORSPreflight(route: corsPreflight.route, result: corsPreflight.result) }
        switch outcome {
        case .answered(let status, let seconds):
            metrics.requestFinished()
            metrics.recordRequest(route: route ?? "-", status: status, seconds: seconds)
            if let route, let cacheStatus { metrics.recordCacheStatus(route: route, status: cacheStatus) }
        case .cancelled:
            metrics.requestFinished()
        case .background:
            break
        }
    }
}
