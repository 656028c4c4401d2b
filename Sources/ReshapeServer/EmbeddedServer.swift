import CCurl
import ReshapeProxy
import ReshapeRules

/// Serves a rule set built in code, not loaded from files, on worker loops of its own and
/// without `Server.run`'s signal handling (the host process keeps its signals): for tests that
/// serve routes the way a program builds them, and for embedding. No admin listener, no reload.
package final class EmbeddedServer {
    /// The port the workers listen on (the configuration's, or the one port 0 picked).
    package let port: Int
    private let workers: [Worker]
    private var stopped = false

    /// Why libcurl could not be loaded, or nil once it is loaded and set up.
    private static let curlFailure: String? = reshape_curl_open().map { String(cString: $0) }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package init(ruleSet: RuleSet, configuration: ServerConfiguration) throws {
        if let failure = EmbeddedServer.curlFailure {
            throw Failure(description: "libcurl could not be loaded: \(failure)")
        }
        var configuration = configuration
        configuration.adminListen = nil
        let shared = SharedState(configuration: configuration, rules: ServingRules(ruleSet))
        let opened: (sockets: [Int32], port: Int)
        do {
            opened = try ListeningSocket.open(
                host: configuration.listenHost, port: configuration.listenPort, count: configuration.workers)
        } catch {
            throw Failure(description: error.description)
        }
        port = opened.port
        workers = opened.sockets.enumerated().map {
            Worker(index: $0.offset, listeningSocket: $0.element, shared: shared)
        }
        for worker in workers { worker.start {} }
    }

    /// Drains (requests in flight are finished, idle connections closed) and joins the loops.
    package func stop() {
        guard !stopped else { return }
        stopped = true
        for worker in workers { worker.requestDrain() }
        for worker in workers { worker.join() }
    }
}
