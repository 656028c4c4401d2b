import ReshapeJSON

/// A route run from fixture bodies instead of the network, through the same `RouteRun` the
/// proxy drives: `reshape test` and `reshape apply` answer what the server would.
package enum OfflineRun {
    /// What the route's fetches returned.
    package enum Fetched: Sendable {
        /// The body of a single-fetch (`upstream`/`path`) route, parsed as the server parses it.
        case single(JSONTape)
        /// A `fetch:` route's bodies by fetch name; a fetch left out failed (an optional one is `null`).
        case fanOut([String: JSON])
    }

    /// What the route sends upstream for a client body: `BodyRule.prepare`, or an error when
    /// the route takes no body.
    package static func prepareBody(_ route: Route, _ body: JSON, parameters: [String: String]) throws(PipelineError)
        -> (bytes: [UInt8], contentType: String)
    {
        guard let rule = route.body else {
            throw PipelineError(code: "body-not-allowed", message: "route '\(route.name)' takes no request body")
        }
        return try rule.prepare(body, parameters: parameters)
    }

    /// The route's transform over `fetched`, with each `expand` follow-up answered from
    /// `followUps` by upstream path (`ExpandRule.fetch.renderedPath` with `{value}`); a path not
    /// there answers 404, which is a missing follow-up.
    /// `queryOrder` is the request's Firebase query order (`keyed-to-array`'s `order: query`).
    /// `observe` traces every step (`reshape explain`).
    package static func respond(
        _ route: Route, fetched: Fetched, followUps: [String: JSONTape] = [:],
        parameters: [String: String], queryOrder: FirebaseQuery.Order = .key, observe: StepObserver? = nil
    ) throws(PipelineError) -> PipelineOutput {
        var run = RouteRun(route: route, parameters: parameters, queryOrder: queryOrder)
        var progress: RouteRun.Progress
        switch fetched {
        case .single(let tape):
            progress = try run.start(tape, observe: observe)
        case .fanOut(let bodies):
            progress = try run.start(
                RouteRun.fanOutInput(route.fetches.map { (name: $0.name, body: bodies[$0.name]) }), observe: observe)
        }
        while true {
            switch progress {
            case .done(let output):
                return output
            case .followUps(let expand, let values):
                var outcomes: [String: RouteRun.FollowUp] = [:]
                for value in values {
                    var captures = parameters
                    captures["value"] = value
                    // A value that cannot be a path segment (`.`, `..`) is never fetched: missing.
                    if let path = try? expand.fetch.renderedPath(captures), let body = followUps[path] {
                        outcomes[value] = .body(body)
                    } else {
                        outcomes[value] = .notFound
                    }
                }
                progress = try run.resume(outcomes, observe: observe)
            }
        }
    }

    /// Fixture JSON as the tape the server would have parsed from the wire.
    package static func tape(_ value: JSON) -> JSONTape {
        // Canonical output of a parsed value always parses back.
        try! JSONTape.parse(value.serialized())
    }
}
