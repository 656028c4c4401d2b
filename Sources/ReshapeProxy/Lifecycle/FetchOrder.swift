import ReshapeRules

/// A fetch for the server to start; `id` names it when it finishes or is cancelled.
package struct FetchOrder: Sendable {
    package var id: Int
    package var request: UpstreamRequest
    /// What the fetch's end is counted under: its route and its rule's upstream.
    package var counted: FetchCount
}

/// Where a fetch's end is counted in the metrics: its latency and failure by upstream, and the
/// fetch by route and upstream.
package struct FetchCount: Sendable, Equatable {
    package var route: String
    package var upstream: String

    /// Records a fetch that ended with `result` after `seconds`. The server calls it for each
    /// fetch it reports to the lifecycle (a cancelled one never reports).
    package func record(_ result: UpstreamResult, seconds: Double, in metrics: Metrics) {
        var failure: UpstreamFailure?
        if case .failure(let kind, _) = result { failure = kind }
        metrics.recordUpstream(upstream: upstream, seconds: seconds, failure: failure)
        metrics.recordFetch(route: route, upstream: upstream)
    }
}

/// A fetch in flight for the server to stop, and how stopping it counts against its upstream's
/// circuit: as a timeout (the route's timeout cut it off) or not at all (the answer no longer
/// needs it, or the client left).
package struct FetchCancel: Sendable, Equatable {
    package var id: Int
    package var countsAsTimeout: Bool

    package init(id: Int, countsAsTimeout: Bool = false) {
        self.id = id
        self.countsAsTimeout = countsAsTimeout
    }
}
