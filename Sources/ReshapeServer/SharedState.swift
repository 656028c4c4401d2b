import Synchronization
import ReshapeProxy
import ReshapeRules

/// The only state workers share: the current rules (swapped whole on reload), per-worker
/// metrics, and lifecycle flags. Everything else belongs to one loop.
final class SharedState: Sendable {
    let configuration: ServerConfiguration
    let metrics: [Metrics]
    private let current: Mutex<ServingRules>
    private let counters = Mutex((reloads: 0, refused: 0))
    let draining = Atomic<Bool>(false)

    init(configuration: ServerConfiguration, rules: ServingRules) {
        self.configuration = configuration
        metrics = (0..<configuration.workers).map { _ in Metrics() }
        current = Mutex(rules)
    }

    var rules: ServingRules { current.withLock { $0 } }

    func replaceRules(_ rules: ServingRules) {
        current.withLock { $0 = rules }
        counters.withLock { $0.reloads += 1 }
    }

    func reloadRefused() { counters.withLock { $0.refused += 1 } }

    func metricsText() -> String {
        let counts = counters.withLock { $0 }
        return Metrics.exposition(metrics, digest: rules.ruleSet.digest, reloads: counts.reloads, reloadFailures: counts.refused)
    }
}
