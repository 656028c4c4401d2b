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

    init(configuration: ServerConfiguration, rules: ServingRules) {
        self.configuration = configuration
        let loops = configuration.workers + (configuration.adminListen == nil ? 0 : 1)
        metrics = (0..<loops).map { _ in Metrics() }
        current = Locked(rules)
        cache = configuration.cacheBytes > 0 ? ResponseCache(capacityBytes: configuration.cacheBytes) : nil
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

    /// `/_reshape/<name>`, answered by whichever loop serves the admin endpoints.
    func adminResponse(_ name: String) -> HTTPResponse {
        let rules = self.rules
        return AdminEndpoints.response(
            name, draining: draining.load(ordering: .relaxed), rulesDigest: rules.ruleSet.digest,
            metricsText: metricsText, openAPIDocument: { rules.openAPIDocument })
    }

    func metricsText() -> String {
        let counts = counters.withLock { $0 }
        return Metrics.exposition(
            metrics, digest: rules.ruleSet.digest, reloads: counts.reloads, reloadFailures: counts.refused,
            cache: cache?.counters)
    }
}
