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
        switch name {
        case "live":
            return .json(200, Array(#"{"status":"live"}"#.utf8))
        case "ready":
            if draining.load(ordering: .relaxed) {
                return Problem.shuttingDown.response
            }
            let body = JSON.object(JSONObject(["status": .string("ready"), "rules": .string(rules.ruleSet.digest)]))
            return .json(200, body.serialized())
        case "metrics":
            return HTTPResponse(status: 200, headers: [.init(name: "Content-Type", value: "text/plain; version=0.0.4")],
                                body: Array(metricsText().utf8))
        default:
            return Problem.notFound(path: Router.adminPrefix + name).response
        }
    }

    func metricsText() -> String {
        let counts = counters.withLock { $0 }
        return Metrics.exposition(metrics, digest: rules.ruleSet.digest, reloads: counts.reloads, reloadFailures: counts.refused)
    }
}
