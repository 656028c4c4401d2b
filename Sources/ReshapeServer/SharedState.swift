import CLibUV
import ReshapeJSON
import ReshapeProxy
import ReshapeRules
import Synchronization

/// The only state workers share: the current rules (swapped whole on reload), per-worker
/// metrics, and lifecycle flags. Everything else belongs to one loop.
final class SharedState: Sendable {
    let configuration: ServerConfiguration
    /// One per worker, then the admin listener's when it has its own port.
    let metrics: [Metrics]
    private let current: Locked<ServingRules>
    private let counters = Locked((reloads: 0, refused: 0))
    let draining = Atomic<Bool>(false)
    /// Normalized answers of routes with `cache:`, shared by every worker; nil with `--cache-bytes 0`.
    let cache: ResponseCache?
    /// The status page's last minute of metrics, sampled by the main loop (`sampleMetrics`).
    let window = Locked(MetricsWindow(seconds: 60))
    /// The last reload's outcome in words, for the status page; nil: none since start.
    let lastReload = Locked<String?>(nil)
    /// The rate limits' keys, shared by every worker: a limit is the process's (`--limit-keys`).
    let limits: RateLimiter
    /// The `max-in-flight` places and queues of the upstreams that have one, for every loop.
    let admissions = UpstreamAdmissions()
    /// The memory budget for requests in flight; nil with `--max-inflight-bytes 0`.
    let inflight: InflightBytes?

    init(configuration: ServerConfiguration, rules: ServingRules) {
        self.configuration = configuration
        let loops = configuration.workers + (configuration.adminListen == nil ? 0 : 1)
        metrics = (0..<loops).map { _ in Metrics() }
        current = Locked(rules)
        inflight = configuration.maxInflightBytes > 0 ? InflightBytes(limit: configuration.maxInflightBytes) : nil
        cache = configuration.cacheBytes > 0 ? ResponseCache(capacityBytes: configuration.cacheBytes) : nil
        limits = RateLimiter(
            table: LimitTable(capacity: configuration.limitKeys), trustedProxies: configuration.trustedProxies)
    }

    var rules: ServingRules { current.withLock { $0 } }

    func replaceRules(_ rules: ServingRules) {
        current.withLock { $0 = rules }
        counters.withLock { $0.reloads += 1 }
        // Answers of routes that changed (or went) would no longer be what the rules say.
        var fingerprints: [String: String] = [:]
        for route in rules.ruleSet.routes { fingerprints[route.name] = route.fingerprint }
        cache?.retain(fingerprints: fingerprints)
    }

    func reloadRefused() { counters.withLock { $0.refused += 1 } }

    /// Takes a sample of the workers' metrics for the status page's window (`now`: monotonic).
    /// True when a load has just ended and the workers should hand their spare memory back.
    func sampleMetrics(now: Double) -> Bool {
        let snapshot = MetricsSnapshot.of(metrics)
        window.withLock { $0.record(snapshot, at: now) }
        return loadEnded()
    }

    /// Decides when freed memory goes back to the system, from the samples.
    private let memoryTrim = Locked(MemoryTrim())

    /// Whether a load has ended (many connections or requests in flight fewer than at its
    /// height, or the memory budget just emptied), so that free memory should go back to the
    /// system: glibc keeps it in its arenas otherwise, and RSS stays at the load's peak.
    private func loadEnded() -> Bool {
        var peak = MemoryTrim.Load(connections: 0, requests: 0)
        var now = peak
        for worker in metrics {
            let load = worker.takeLoad()
            peak.connections += load.peak.connections
            peak.requests += load.peak.requests
            now.connections += load.now.connections
            now.requests += load.now.requests
        }
        let budgetBusy = inflight.map { $0.gauges.used > 0 || $0.gauges.waiting > 0 } ?? false
        return memoryTrim.withLock { $0.sampled(peak: peak, now: now, budgetBusy: budgetBusy) }
    }

    /// `/_reshape/`: the status page, from the window, the routes and the upstreams' circuits.
    func statusPage(now: Double, unixSeconds: Int) -> HTTPResponse {
        let rules = self.rules
        let figures = window.withLock { $0.figures(MetricsSnapshot.of(metrics), at: now) }
        let hitRatios = Metrics.cacheHitRatios(metrics)
        let drops = Metrics.recentDrops(metrics)
        let routes = rules.ruleSet.routes.map { route in
            StatusReport.RouteRow(
                name: route.name, request: route.method + " " + route.path.description, figures: figures[route.name],
                cacheHitRatio: route.cache == nil ? nil : hitRatios[route.name] ?? 0,
                recentDrops: drops[route.name] ?? [])
        }
        let circuits = Metrics.circuitStates(metrics)
        let retries = Metrics.retries(metrics)
        let upstreams = rules.ruleSet.upstreams.keys.sorted().map { name in
            let state = circuits[name].map { ["closed", "open", "half-open"][min(max($0, 0), 2)] }
            let circuit = rules.ruleSet.upstreams[name]?.circuit == nil ? "off" : state ?? "closed"
            return StatusReport.UpstreamRow(name: name, circuit: circuit, retries: retries[name] ?? 0)
        }
        let report = StatusReport(
            generatedAt: HTTPDate.imfFixdate(unixSeconds: unixSeconds),
            windowSeconds: Int(window.withLock { $0.seconds }),
            rulesDigest: rules.ruleSet.digest, lastReload: lastReload.withLock { $0 }, routes: routes,
            upstreams: upstreams)
        return HTTPResponse(
            status: 200, headers: [NameValue(name: "Content-Type", value: "text/html; charset=utf-8")],
            body: StatusPage.render(report))
    }

    /// `/_reshape/<name>`, answered by whichever loop serves the admin endpoints.
    func adminResponse(_ name: String) -> HTTPResponse {
        if name.isEmpty {
            return statusPage(now: Clock.monotonicSeconds(), unixSeconds: Clock.unixMilliseconds() / 1000)
        }
        let rules = self.rules
        return AdminEndpoints.response(
            name, draining: draining.load(ordering: .relaxed), rulesDigest: rules.ruleSet.digest,
            metricsText: metricsText, openAPIDocument: { rules.openAPIDocument })
    }

    func metricsText() -> String {
        let counts = counters.withLock { $0 }
        return Metrics.exposition(
            metrics, digest: rules.ruleSet.digest, reloads: counts.reloads, reloadFailures: counts.refused,
            cache: cache?.counters, limitKeys: limits.table.count) + Metrics.admissionExposition(admissions.gauges)
            + Metrics.budgetExposition(inflight?.gauges)
    }
}
