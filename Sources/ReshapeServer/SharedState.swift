import Synchronization
import ReshapeJSON
import ReshapeProxy
import ReshapeRules

/// The only state workers share: the current rules (swapped whole on reload), per-worker
/// metrics, and lifecycle flags. Everything else belongs to one loop.
final class SharedState: Sendable {
    let configuration: ServerConfiguration
    /// One per worker, then the admin listener's when it has its own port.
    let metrics: [Metrics]
    private let current: Mutex<ServingRules>
    private let counters = Mutex((reloads: 0, refused: 0))
    let draining = Atomic<Bool>(false)

    init(configuration: ServerConfiguration, rules: ServingRules) {
        self.configuration = configuration
        let loops = configuration.workers + (configuration.adminListen == nil ? 0 : 1)
        metrics = (0..<loops).map { _ in Metrics() }
        current = Mutex(rules)
    }

    var rules: ServingRules { current.withLock { $0 } }

    func replaceRules(_ rules: ServingRules) {
        current.withLock { $0 = rules }
        counters.withLock { $0.reloads += 1 }
    }

    func reloadRefused() { counters.withLock { $0.refused += 1 } }

    /// `/_reshape/<name>`, answered by whichever loop serves the admin endpoints.
    func adminResponse(_ name: String) -> HTTPResponse {
        AdminEndpoints.response(name, draining: draining.load(ordering: .relaxed), rulesDigest: rules.ruleSet.digest,
                                metricsText: metricsText)
    }

    func metricsText() -> String {
        let counts = counters.withLock { $0 }
        return Metrics.exposition(metrics, digest: rules.ruleSet.digest, reloads: counts.reloads, reloadFailures: counts.refused)
    }
}
