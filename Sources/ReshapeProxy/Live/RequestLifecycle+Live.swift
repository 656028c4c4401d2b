import ReshapeJSON
import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// A live route's stream (`Accept: text/event-stream`): the subscription the server opens,
/// and the one access-log line it ends with.
extension RequestLifecycle {
    /// Builds the route's one fetch as a plain GET would, and hands it over as a subscription.
    /// A request the route refuses (a bad query, say) is answered as the GET would be.
    func subscribe(_ match: RouteMatch) -> Action {
        guard let policy = match.route.live else { impossible("subscribe", in: stateName) }
        let (exchange, action) = RouteExchange.start(
            request, route: match.route, parameters: match.parameters, rules: rules)
        switch action {
        case .fetch(let orders) where orders.count == 1:
            // Its log line redacts as a plain GET's: forwarded header values are secrets too.
            state = .subscribed(match, redactor: exchange?.redactor ?? redactor)
            var subscription = LiveSubscription(
                route: match.route, parameters: match.parameters, request: orders[0].request, policy: policy,
                rules: rules, tokenExpiresAt: tokenExpiresAt)
            subscription.headHeaders = cors.streamHeaders(adding: limitHeaders)
            subscription.view = clientView?.liveView
            return .subscribe(subscription)
        case .fetch, .wait:
            // The loader allows `live:` only on single-fetch routes; anything else is a bug there.
            impossible("subscribe without one fetch", in: stateName)
        case .respond(let rendered, _):
            return respond(
                rendered.response,
                AnswerRecord(routeName: match.route.name, exchange: exchange, errorCode: rendered.errorCode))
        }
    }

    /// A plain GET (or HEAD) of a live route, on a loop that streams: the server asks that
    /// route's streams for the current answer of the one it would share. nil: fetch as usual.
    func lookUpLive(_ match: RouteMatch) -> Action? {
        guard settings.servesLive, request.method == "GET" || request.method == "HEAD", request.body.isEmpty
        else { return nil }
        state = .awaitingLiveAnswer(match)
        return .lookUpLive(route: match.route.name)
    }

    /// The key of the stream this plain GET would share; nil when its fetch cannot be built (no
    /// stream answers it then). The server asks for it only when the route has a stream open,
    /// so that a GET of a live route nobody streams builds no fetch for it.
    package func liveStreamKey() -> String? {
        guard case .awaitingLiveAnswer(let match) = state else { impossible("liveStreamKey", in: stateName) }
        return liveFetch(match)?.key
    }

    /// The stream key of the route's one fetch as this request would make it, and the redactor
    /// that knows this request's forwarded header values.
    private func liveFetch(_ match: RouteMatch) -> (key: String, redactor: Redactor)? {
        let (exchange, action) = RouteExchange.start(
            request, route: match.route, parameters: match.parameters, rules: rules)
        guard case .fetch(let orders) = action, orders.count == 1 else { return nil }
        let key = LiveSubscription.streamKey(
            route: match.route, parameters: match.parameters, request: orders[0].request)
        return (key, exchange?.redactor ?? redactor)
    }

    /// The live stream's current answer (nil: no such stream open, or none yet): answered
    /// without a fetch (`Reshape-Cache: live`); without one, the request goes on as any plain
    /// GET, to the cache (`cacheWaiter`, as for `begin`) and the upstream.
    package func liveLookupFinished(
        _ answer: JSON?, now: Double, cacheWaiter: @autoclosure () -> ResponseCache.Waiter? = nil
    ) -> Action {
        guard case .awaitingLiveAnswer(let match) = state else { impossible("liveLookupFinished", in: stateName) }
        guard let answer, let fetch = liveFetch(match) else {
            return lookUpCache(match, now: now, waiter: cacheWaiter) ?? startExchange(match, lead: nil)
        }
        let route = match.route
        let body = answer.serialized()
        var headers = [
            NameValue(name: "Content-Type", value: "application/json"),
            NameValue(name: "ETag", value: EntityTag.of(body)),
            NameValue(name: CacheStatus.headerName, value: "live"),
        ]
        headers += CachingHeaders.route(forwarded: route.varyHeaders, maxAge: nil, upstream: CacheControl())
        // Its log line redacts as a plain GET's: forwarded header values are secrets too.
        return respond(
            HTTPResponse(status: 200, headers: headers, body: body),
            AnswerRecord(routeName: route.name, redactor: fetch.redactor))
    }

    /// The worker streams to as many subscribers as the route allows, or (`streamLimit`) keeps
    /// as many streams open to the route's upstream host as it may: a 503 instead.
    package func subscriptionRefused(streamLimit: Int? = nil) -> Action {
        guard case .subscribed(let match, let redactor) = state, let policy = match.route.live else {
            impossible("subscriptionRefused", in: stateName)
        }
        let problem =
            if let streamLimit {
                Problem.tooManyStreams(route: match.route.name, upstream: match.route.upstream, limit: streamLimit)
            } else {
                Problem.tooManySubscribers(route: match.route.name, limit: policy.maxSubscribers)
            }
        // Refused for distinct forwarded credentials, typically: its line redacts them too.
        return respond(
            problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code, redactor: redactor))
    }

    /// The subscription ended (the client left, the stream ended, or the server drained): the
    /// server leaves the stream and records the request, with its access-log line (status 200,
    /// `live_events`) when logging is on.
    package func subscriptionEnded(
        eventsSent: Int, bytesSent: Int, errorCode: String?, now: Double, wallClockMilliseconds: Int
    ) -> Action {
        guard case .subscribed(let match, let redactor) = state else {
            impossible("subscriptionEnded", in: stateName)
        }
        state = .answered
        let seconds = now - started
        var finished = FinishedRequest(outcome: .answered(status: 200, seconds: seconds), route: match.route.name)
        finished.auth = authCheck
        guard settings.accessLog else { return .unsubscribe(finished) }
        var entry = AccessLogEntry(
            timeMilliseconds: wallClockMilliseconds, method: request.method, path: String(request.path),
            route: match.route.name, status: 200, upstreamStatus: nil, durationMilliseconds: seconds * 1000,
            upstreamMilliseconds: nil, bytes: bytesSent, dropped: [], errorCode: errorCode, fetches: 0,
            traceID: trace.context.traceID)
        entry.liveEvents = eventsSent
        finished.accessLogLine = entry.line(redactor: redactor)
        return .unsubscribe(finished)
    }
}
