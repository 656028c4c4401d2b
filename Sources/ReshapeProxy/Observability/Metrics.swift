/// Counters and latency histograms for one worker, exposed in Prometheus text format. Each
/// worker records into its own instance; `/metrics` merges them.
package final class Metrics: Sendable {
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.latencyBuckets.count)
        var sum = 0.0
        var total = 0

        mutating func observe(_ seconds: Double) {
            for (index, bound) in Metrics.latencyBuckets.enumerated() where seconds <= bound { counts[index] += 1 }
            sum += seconds
            total += 1
        }

        mutating func merge(_ other: Histogram) {
            for index in counts.indices { counts[index] += other.counts[index] }
            sum += other.sum
            total += other.total
        }
    }

    struct State {
        var requests: [RouteStatus: Int] = [:]
        var latency: [String: Histogram] = [:]  // route
        var upstreamLatency: [String: Histogram] = [:]  // upstream
        var upstreamErrors: [String: Int] = [:]  // upstream|kind
        var dropped: [String: Int] = [:]  // route|type
        var fetches: [String: Int] = [:]  // route|upstream
        var sharedCache: [String: Int] = [:]  // outcome
        var connections = 0
        var inFlight = 0
        /// The most connections, and requests in flight, at once since `takeLoad` last read them.
        var connectionsPeak = 0
        var inFlightPeak = 0
        var upstreamConnectionsOpened = 0
        var resilience = Resilience()
        /// What only the status page shows (`Metrics+Status.swift`).
        var status = StatusFigures()
    }

    /// Retries and circuits, by upstream.
    struct Resilience {
        var retries: [String: Int] = [:]  // upstream|reason
        var circuitRejections: [String: Int] = [:]  // upstream
        var circuitStates: [String: Int] = [:]  // upstream: 0 closed, 1 open, 2 half-open
        var redirects: [String: Int] = [:]  // upstream|result
        var cacheSkips: [String: Int] = [:]  // route|reason
        var authResults: [String: Int] = [:]  // verifier|result
        var shed: [String: Int] = [:]  // reason
        var corsPreflights: [String: Int] = [:]  // route|result
        var rateLimited: [String: Int] = [:]  // route|policy
        var limitFallbacks = 0

        mutating func merge(_ other: Resilience) {
            retries.merge(other.retries, uniquingKeysWith: +)
            redirects.merge(other.redirects, uniquingKeysWith: +)
            cacheSkips.merge(other.cacheSkips, uniquingKeysWith: +)
            authResults.merge(other.authResults, uniquingKeysWith: +)
            shed.merge(other.shed, uniquingKeysWith: +)
            corsPreflights.merge(other.corsPreflights, uniquingKeysWith: +)
            rateLimited.merge(other.rateLimited, uniquingKeysWith: +)
            limitFallbacks += other.limitFallbacks
            circuitRejections.merge(other.circuitRejections, uniquingKeysWith: +)
            // The worst worker's state: a circuit open on one worker is worth seeing.
            circuitStates.merge(other.circuitStates, uniquingKeysWith: max)
        }
    }

    let state = Locked(State())

    // Tracing: the span exporter's counters, kept apart (`Metrics+Spans.swift`).
    let spanCounters = Locked(SpanCounters())

    // Live routes' streams (`Metrics+Live.swift`).
    let liveCounters = Locked(LiveCounters())

    package init() {}

    package func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock {
            $0.requests[RouteStatus(route: route, status: status), default: 0] += 1
            $0.latency[route, default: Histogram()].observe(seconds)
        }
    }

    package func recordUpstream(upstream: String, seconds: Double, failure: UpstreamFailure?) {
        state.withLock {
            $0.upstreamLatency[upstream, default: Histogram()].observe(seconds)
            if let failure { $0.upstreamErrors["\(upstream)|\(failure.rawValue)", default: 0] += 1 }
        }
    }

    /// One fetch a route made (its own or an `expand` follow-up), finished or failed.
    package func recordFetch(route: String, upstream: String) {
        state.withLock { $0.fetches["\(route)|\(upstream)", default: 0] += 1 }
    }

    /// How one lookup in the shared cache (Redis) went.
    package enum SharedCacheOutcome: String, Sendable {
        case hit, miss, timeout, error
        /// Not asked: no connection at the time.
        case unavailable
    }

    package func recordSharedCache(_ outcome: SharedCacheOutcome) {
        state.withLock { $0.sharedCache[outcome.rawValue, default: 0] += 1 }
    }

    package func recordDropped(route: String, type: String, count: Int = 1) {
        state.withLock { $0.dropped["\(route)|\(type)", default: 0] += count }
    }

    /// A request was dispatched (to an upstream or an admin endpoint) and is not answered yet.
    package func requestStarted() {
        state.withLock {
            $0.inFlight += 1
            $0.inFlightPeak = max($0.inFlightPeak, $0.inFlight)
        }
    }
    package func requestFinished() { state.withLock { $0.inFlight -= 1 } }

    package func connectionOpened() {
        state.withLock {
            $0.connections += 1
            $0.connectionsPeak = max($0.connectionsPeak, $0.connections)
        }
    }
    package func connectionClosed() { state.withLock { $0.connections -= 1 } }

    /// Connections and requests in flight: the most at once since the last call, and now. For
    /// `MemoryTrim`, which must see a burst that came and went between two samples.
    package func takeLoad() -> (peak: MemoryTrim.Load, now: MemoryTrim.Load) {
        state.withLock { state in
            let now = MemoryTrim.Load(connections: state.connections, requests: state.inFlight)
            let peak = MemoryTrim.Load(
                connections: max(state.connectionsPeak, now.connections),
                requests: max(state.inFlightPeak, now.requests))
            state.connectionsPeak = now.connections
            state.inFlightPeak = now.requests
            return (peak, now)
        }
    }

    package var openConnections: Int { state.withLock { $0.connections } }
    package var requestsInFlight: Int { state.withLock { $0.inFlight } }

    /// The upstream client opened a new connection (not a reused kept-alive one).
    package func upstreamConnectionOpened() { state.withLock { $0.upstreamConnectionsOpened += 1 } }

    // MARK: - Retries and circuits

    /// A fetch to `upstream` is tried again (`reason`: reset, connect-failure or the status).
    package func upstreamRetried(upstream: String, reason: String) {
        state.withLock { $0.resilience.retries["\(upstream)|\(reason)", default: 0] += 1 }
    }

    /// A fetch or stream to `upstream` was redirected: the redirect was `followed`, or refused.
    package func upstreamRedirected(upstream: String, followed: Bool) {
        let key = upstream + (followed ? "|followed" : "|refused")
        state.withLock { $0.resilience.redirects[key, default: 0] += 1 }
    }

    /// A request of an `auth` route was checked by `verifier` with `result`.
    package func recordAuth(verifier: String, result: String) {
        state.withLock { $0.resilience.authResults["\(verifier)|\(result)", default: 0] += 1 }
    }

    /// A request was answered `503 load-shed` for `reason`.
    package func recordShed(reason: String) {
        state.withLock { $0.resilience.shed[reason, default: 0] += 1 }
    }

    /// A `cache:` route's answer was not stored because an upstream said `reason`.
    package func recordCacheSkipped(route: String, reason: String) {
        state.withLock { $0.resilience.cacheSkips["\(route)|\(reason)", default: 0] += 1 }
    }

    /// A browser's preflight for `route` ("-": none) came to `result` (`CORSPreflight.Result`).
    package func recordCORSPreflight(route: String, result: String) {
        state.withLock { $0.resilience.corsPreflights["\(route)|\(result)", default: 0] += 1 }
    }

    /// A fetch failed at once because `upstream`'s circuit is open.
    package func circuitRejected(upstream: String) {
        state.withLock { $0.resilience.circuitRejections[upstream, default: 0] += 1 }
    }

    /// `upstream`'s circuit on this worker is now `value` (0 closed, 1 open, 2 half-open).
    package func circuitState(upstream: String, value: Int) {
        state.withLock { $0.resilience.circuitStates[upstream] = value }
    }

    /// Each upstream's circuit over the workers (0 closed, 1 open, 2 half-open; the highest
    /// worker's value), for the metrics text and the status page. Upstreams without a circuit,
    /// or never fetched, are absent.
    package static func circuitStates(_ workers: [Metrics]) -> [String: Int] {
        var merged = Resilience()
        for worker in workers { merged.merge(worker.state.withLock { $0.resilience }) }
        return merged.circuitStates
    }

    static func resilienceExposition(_ resilience: Resilience, label: (String) -> String) -> String {
        var out = pairCounter(
            "reshape_upstream_retries_total", "Upstream fetches tried again, by upstream and reason.",
            resilience.retries, labels: ("upstream", "reason"), label: label)
        out +=
            "# HELP reshape_upstream_circuit_state Circuit per upstream: 0 closed, 1 open, 2 half-open (highest over workers).\n# TYPE reshape_upstream_circuit_state gauge\n"
        for (upstream, value) in resilience.circuitStates.sorted(by: { $0.key < $1.key }) {
            out += "reshape_upstream_circuit_state{upstream=\"\(label(upstream))\"} \(value)\n"
        }
        out +=
            "# HELP reshape_upstream_circuit_rejections_total Fetches failed at once because the upstream's circuit was open.\n# TYPE reshape_upstream_circuit_rejections_total counter\n"
        for (upstream, count) in resilience.circuitRejections.sorted(by: { $0.key < $1.key }) {
            out += "reshape_upstream_circuit_rejections_total{upstream=\"\(label(upstream))\"} \(count)\n"
        }
        out += pairCounter(
            "reshape_upstream_redirects_total", "Upstream redirects, by upstream and result (followed, refused).",
            resilience.redirects, labels: ("upstream", "result"), label: label)
        out += pairCounter(
            "reshape_cache_skipped_total",
            "Answers of cache: routes not stored because an upstream's Cache-Control forbade it, by route and directive.",
            resilience.cacheSkips, labels: ("route", "reason"), label: label)
        out += pairCounter(
            "reshape_auth_total",
            "Bearer tokens checked on auth routes, by verifier and result (ok, missing, expired, bad-signature, bad-claims, unknown-key, forbidden, unavailable).",
            resilience.authResults, labels: ("verifier", "result"), label: label)
        out +=
            "# HELP reshape_shed_total Requests answered 503 load-shed, by reason (loop-lag).\n# TYPE reshape_shed_total counter\n"
        for (reason, count) in resilience.shed.sorted(by: { $0.key < $1.key }) {
            out += "reshape_shed_total{reason=\"\(reason)\"} \(count)\n"
        }
        out += pairCounter(
            "reshape_cors_preflights_total",
            "Browser preflights (OPTIONS), by route and result (allowed, refused-origin, refused-method, refused-headers).",
            resilience.corsPreflights, labels: ("route", "result"), label: label)
        out += limitExposition(resilience, label: label)
        return out
    }

    /// A counter with two labels, kept as `first|second` keys: the first label a name from the
    /// rules (escaped by `label`), the second one of Reshape's own words.
    static func pairCounter(
        _ name: String, _ help: String, _ counts: [String: Int], labels: (String, String), label: (String) -> String
    ) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        for (key, count) in counts.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            out +=
                "\(name){\(labels.0)=\"\(label(parts[0]))\",\(labels.1)=\"\(parts.count > 1 ? parts[1] : "")\"} \(count)\n"
        }
        return out
    }

    /// Prometheus text exposition (format 0.0.4) of several workers' metrics together.
    package static func exposition(
        _ workers: [Metrics], digest: String, reloads: Int, reloadFailures: Int,
        cache: ResponseCache.Counters? = nil, limitKeys: Int? = nil
    ) -> String {
        var merged = State()
        for worker in workers {
            let snapshot = worker.state.withLock { $0 }
            merged.requests.merge(snapshot.requests, uniquingKeysWith: +)
            merged.upstreamErrors.merge(snapshot.upstreamErrors, uniquingKeysWith: +)
            merged.dropped.merge(snapshot.dropped, uniquingKeysWith: +)
            merged.fetches.merge(snapshot.fetches, uniquingKeysWith: +)
            merged.sharedCache.merge(snapshot.sharedCache, uniquingKeysWith: +)
            merged.connections += snapshot.connections
            merged.inFlight += snapshot.inFlight
            merged.upstreamConnectionsOpened += snapshot.upstreamConnectionsOpened
            merged.resilience.merge(snapshot.resilience)
            for (key, histogram) in snapshot.latency { merged.latency[key, default: Histogram()].merge(histogram) }
            for (key, histogram) in snapshot.upstreamLatency {
                merged.upstreamLatency[key, default: Histogram()].merge(histogram)
            }
        }
        var out = ""
        func label(_ value: String) -> String {
            value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
        }
        out +=
            "# HELP reshape_requests_total Requests answered, by route and status.\n# TYPE reshape_requests_total counter\n"
        // In the order of "route|status" as text, as the rows have always come.
        for (_, key, count) in merged.requests.map({ ("\($0.key.route)|\($0.key.status)", $0.key, $0.value) })
            .sorted(by: { $0.0 < $1.0 })
        {
            out += "reshape_requests_total{route=\"\(label(key.route))\",status=\"\(key.status)\"} \(count)\n"
        }
        func histogram(_ name: String, _ help: String, _ labelName: String, _ values: [String: Histogram]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
            for (key, histogram) in values.sorted(by: { $0.key < $1.key }) {
                for (index, bound) in latencyBuckets.enumerated() {
                    out += "\(name)_bucket{\(labelName)=\"\(label(key))\",le=\"\(bound)\"} \(histogram.counts[index])\n"
                }
                out += "\(name)_bucket{\(labelName)=\"\(label(key))\",le=\"+Inf\"} \(histogram.total)\n"
                out += "\(name)_sum{\(labelName)=\"\(label(key))\"} \(histogram.sum)\n"
                out += "\(name)_count{\(labelName)=\"\(label(key))\"} \(histogram.total)\n"
            }
        }
        histogram(
            "reshape_request_duration_seconds", "Time from request to response, by route.", "route", merged.latency)
        histogram(
            "reshape_upstream_duration_seconds", "Upstream fetch time, by upstream.", "upstream", merged.upstreamLatency
        )
        out +=
            "# HELP reshape_upstream_errors_total Failed upstream fetches, by upstream and kind.\n# TYPE reshape_upstream_errors_total counter\n"
        for (key, count) in merged.upstreamErrors.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            out += "reshape_upstream_errors_total{upstream=\"\(label(parts[0]))\",kind=\"\(parts[1])\"} \(count)\n"
        }
        out +=
            "# HELP reshape_upstream_fetches_total Upstream fetches finished, by route and upstream (follow-ups included).\n# TYPE reshape_upstream_fetches_total counter\n"
        for (key, count) in merged.fetches.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            out +=
                "reshape_upstream_fetches_total{route=\"\(label(parts[0]))\",upstream=\"\(label(parts[1]))\"} \(count)\n"
        }
        out += resilienceExposition(merged.resilience, label: label)
        out +=
            "# HELP reshape_dropped_elements_total Elements dropped by validation, by route and type.\n# TYPE reshape_dropped_elements_total counter\n"
        for (key, count) in merged.dropped.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            out += "reshape_dropped_elements_total{route=\"\(label(parts[0]))\",type=\"\(label(parts[1]))\"} \(count)\n"
        }
        out +=
            "# HELP reshape_open_connections Client connections open now.\n# TYPE reshape_open_connections gauge\nreshape_open_connections \(merged.connections)\n"
        out +=
            "# HELP reshape_upstream_connections_opened_total Upstream connections opened; far fewer than upstream fetches when keep-alive works.\n# TYPE reshape_upstream_connections_opened_total counter\nreshape_upstream_connections_opened_total \(merged.upstreamConnectionsOpened)\n"
        out +=
            "# HELP reshape_requests_in_flight Requests dispatched and not yet answered.\n# TYPE reshape_requests_in_flight gauge\nreshape_requests_in_flight \(merged.inFlight)\n"
        if let cache {
            let counters: [(String, String, Int)] = [
                ("reshape_cache_hits_total", "Answers served fresh from the cache.", cache.hits),
                (
                    "reshape_cache_misses_total", "Lookups that fetched (as the one request others wait for).",
                    cache.misses
                ),
                (
                    "reshape_cache_stale_total", "Stale answers served (stale-while-revalidate and stale-if-error).",
                    cache.stale
                ),
                (
                    "reshape_cache_coalesced_total", "Requests that waited for another's fetch of the same answer.",
                    cache.coalesced
                ),
                ("reshape_cache_refreshes_total", "Background refreshes started.", cache.refreshes),
                ("reshape_cache_evictions_total", "Answers evicted to stay within --cache-bytes.", cache.evictions),
            ]
            for (name, help, value) in counters {
                out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
            }
            out +=
                "# HELP reshape_cache_shared_total Shared-cache (Redis) lookups and connection errors, by outcome.\n# TYPE reshape_cache_shared_total counter\n"
            for (outcome, count) in merged.sharedCache.sorted(by: { $0.key < $1.key }) {
                out += "reshape_cache_shared_total{outcome=\"\(outcome)\"} \(count)\n"
            }
            out +=
                "# HELP reshape_cache_bytes Bytes the cached answers take.\n# TYPE reshape_cache_bytes gauge\nreshape_cache_bytes \(cache.bytes)\n"
            out +=
                "# HELP reshape_cache_entries Answers in the cache.\n# TYPE reshape_cache_entries gauge\nreshape_cache_entries \(cache.entries)\n"
        }
        if let limitKeys {
            out +=
                "# HELP reshape_limit_keys Rate-limit keys held by the process (at most --limit-keys).\n# TYPE reshape_limit_keys gauge\nreshape_limit_keys \(limitKeys)\n"
        }
        out += spanExposition(workers)
        out += liveExposition(workers)
        out +=
            "# HELP reshape_rules_info The rule set being served.\n# TYPE reshape_rules_info gauge\nreshape_rules_info{digest=\"\(digest)\"} 1\n"
        out += "# HELP reshape_rule_reloads_total Rule reloads, by result.\n# TYPE reshape_rule_reloads_total counter\n"
        out +=
            "reshape_rule_reloads_total{result=\"ok\"} \(reloads)\nreshape_rule_reloads_total{result=\"refused\"} \(reloadFailures)\n"
        return out
    }
}

/// The key of the requests counter: a struct, so counting a request builds no string.
struct RouteStatus: Hashable, Sendable {
    let route: String
    let status: Int
}
