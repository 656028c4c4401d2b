import ReshapeJSON
import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// What a listener's requests share, set once per listener.
package struct LifecycleSettings: Sendable {
    /// Which endpoints this listener answers.
    package var endpoints: Endpoints
    /// False on a listener without an upstream client (the admin one): it never fetches.
    package var canFetch: Bool
    package var accessLog: Bool
    package var metrics: Metrics
    /// The process's answer cache; nil: routes with `cache:` are fetched every time.
    package var cache: ResponseCache?
    /// The replicas share a cache (Redis): a local miss asks it (`Action.lookUpShared`) before
    /// fetching, and an answer kept here is stored there too (`Settlement.store`).
    package var sharesCache = false
    /// `/_reshape/<name>`: the server's admin answers (they report process-wide state).
    package var admin: @Sendable (String) -> HTTPResponse
    /// The loop's trace ids, sampling and span export.
    package var tracer: Tracer
    /// This listener's loop's compressor and threshold; nil: every answer is sent as rendered.
    package var compression: AnswerCompression?
    /// This listener's loop streams live routes: a plain GET of one asks for the current answer
    /// of the stream it would share (`Action.lookUpLive`) before anything else.
    package var servesLive = false
    /// The process's rate limits (`limit:` routes); nil: no route is limited.
    package var limits: RateLimiter?
    /// The replicas share their rate limits (Redis): a limited request asks it
    /// (`Action.checkLimits`), and the process's own table decides when it does not answer.
    package var sharesLimits = false

    package init(
        endpoints: Endpoints, canFetch: Bool, accessLog: Bool, metrics: Metrics, cache: ResponseCache? = nil,
        tracer: Tracer = Tracer(), compression: AnswerCompression? = nil,
        admin: @escaping @Sendable (String) -> HTTPResponse
    ) {
        self.tracer = tracer
        self.endpoints = endpoints
        self.canFetch = canFetch
        self.accessLog = accessLog
        self.metrics = metrics
        self.cache = cache
        self.compression = compression
        self.admin = admin
    }
}

/// One client request from dispatch to answer, as pure logic: the decision (answer at once or
/// fetch), the route's fetches and follow-ups (`RouteExchange`), the answer cache, the
/// rendering, the metrics, and the access-log line. Each event is a method that returns the
/// `Action` for the server, which carries every effect of the event: the fetches to start or
/// stop (and how each counts against its circuit), the route timer, the answer to store in the
/// shared cache, the waiters to wake, the request to record. The server performs them and
/// decides nothing. Nothing here touches a socket or a clock (times and the shared cache's and
/// live streams' answers come in as arguments), so every rule is tested without I/O.
///
/// A class, not a struct: it carries the request, the listener's settings and the exchange,
/// several hundred bytes that as a value were copied (and their references retained) at every
/// hand-over between the server's tables and closures. Not `Sendable`: the compiler keeps a
/// lifecycle on the loop that made it (a cache waiter carries the request's id, not the
/// lifecycle, across threads).
package final class RequestLifecycle {
    /// Where the request is, with what that phase needs.
    enum State {
        /// Created; the rules have not said yet what the request is (only `begin` sees this).
        case routing
        /// A request of an `auth` route: asks the worker for its verifier's keys
        /// (`Action.lookUpKeys`) before anything else; `refetched`: they were fetched again
        /// for the token's unknown `kid`.
        case awaitingKeys(RouteMatch, refetched: Bool)
        /// A `limit:` route's request: asks Redis to decide its policies of this phase
        /// (`Action.checkLimits`) before it goes on.
        case awaitingLimit(RouteMatch, RateLimiter.Phase, [RateLimiter.Entry])
        /// A refresh a stale answer asked for, not started yet; it leads the key's fetch.
        case refreshPending(RouteMatch, CacheLead)
        /// Leads the key's fetch, and asks the cache replicas share before the upstream.
        case awaitingSharedCache(RouteMatch, CacheLead)
        /// A plain GET of a live route: asks the worker's stream of the same upstream request for
        /// its current answer before the cache and the upstream.
        case awaitingLiveAnswer(RouteMatch)
        /// Another request is fetching the key; what it gets comes through `cacheDelivered`.
        case waitingForLeader(RouteMatch, ResponseCache.Waiter)
        /// The route's fetches are running; with `lead`, the answer is kept for the key.
        case exchanging(RouteExchange, lead: CacheLead?)
        /// The answer is decided and handed to the server, which reports it with `answered`.
        case responding(AnswerRecord)
        /// Streaming a live route's answer: the server holds the subscription until it ends
        /// (`subscriptionEnded`) or is refused (`subscriptionRefused`).
        /// `redactor`: the exchange's, which knows this request's forwarded header values.
        case subscribed(RouteMatch, redactor: Redactor)
        /// The answer is recorded (metrics, access log): nothing more happens.
        case answered
        /// The client went away before its answer: nothing more happens.
        case cancelled
    }

    /// Each state's name, one case per `State` case: the diagram test reads them from here.
    enum StateName: String, CaseIterable {
        case routing, awaitingKeys, awaitingLimit, refreshPending, awaitingSharedCache, awaitingLiveAnswer
        case waitingForLeader, exchanging
        case responding, subscribed, answered, cancelled
    }

    /// What the server does next for this request: every effect of one event, in one value.
    package enum Action {
        /// Nothing to do until the next event.
        case wait
        /// Start these fetches and call `fetchFinished` with each one's result. `armTimer` (the
        /// exchange's first fetches, on a route with a `timeout`): arm the route timer for that
        /// many milliseconds and call `timedOut` when it fires.
        case fetch([FetchOrder], armTimer: Int?)
        /// Ask the worker for the key set of this verifier (`refetch`: fetched again, if its last
        /// fetch is old enough, since the token names a key it does not have) and call
        /// `keysFound` with it, or with nil when there is none to be had.
        /// `armTimer`: the route's timer to arm first (its `timeout` bounds the wait for keys and
        /// what follows; `timedOut` while waiting is `503 auth-unavailable`).
        case lookUpKeys(AuthVerifierRule, refetch: Bool, armTimer: Int?)
        /// Ask Redis to decide these rate limits (the GCRA script, bounded by
        /// `--limits-redis-timeout`) and call `limitsChecked` with its answer, or with nil.
        case checkLimits(SharedLimitCheck)
        /// Ask the shared cache (Redis) for this key and call `sharedLookupFinished`.
        case lookUpShared(String)
        /// Ask the worker's live streams of `route` for the current answer of the one this
        /// request would share (its key from `liveStreamKey`, asked only if the route has a
        /// stream open) and call `liveLookupFinished` with it.
        case lookUpLive(route: String)
        /// Open or join the route's upstream stream for this client and stream to it; call
        /// `subscriptionEnded` when it ends, or `subscriptionRefused` if the worker is full.
        case subscribe(LiveSubscription)
        /// Perform the settlement, then answer; call `answered` as the answer is passed on.
        case respond(HTTPResponse, Settlement)
        /// Answer now (a stale copy), then run `refresh`, a request without a client that
        /// fetches the key again: its first event is `startRefresh`.
        case respondAndRefresh(HTTPResponse, refresh: RequestLifecycle)
        /// The request is over: record it (metrics, the access-log line).
        case record(FinishedRequest)
        /// The client went away: perform the settlement, and record the request.
        case cancel(Settlement, FinishedRequest)
        /// The subscription is over: leave the route's stream, and record the request.
        case unsubscribe(FinishedRequest)
        /// Export this span (a fetch's, as it ended: only in a recorded trace), then perform
        /// `then`.
        indirect case exportSpan(Span, then: Action)
    }

    /// The route a request matched, and its path captures.
    struct RouteMatch {
        let shared: SharedRoute
        let parameters: [String: String]

        init(route: SharedRoute, parameters: [String: String]) {
            shared = route
            self.parameters = parameters
        }

        /// Borrowed from the router's copy, never copied per request.
        var route: Route {
            _read { yield shared.route }
        }
    }

    /// What the metrics and the access-log line say about an answer, kept until it is recorded.
    struct AnswerRecord {
        var routeName: String?
        /// The route's fetches, when the answer came from them.
        var exchange: RouteExchange?
        var dropped: [DroppedElement] = []
        /// The problem code when the answer is an error.
        var errorCode: String?
        /// What the log line redacts, when not the exchange's: one that knows this request's
        /// forwarded header values (an answer from a live stream has no exchange of its own).
        var redactor: Redactor?
        /// What a CORS preflight came to, counted by route.
        var preflight: CORSPreflight.Result?
    }

    let request: HTTPRequest
    /// The client's `If-None-Match`, when it sent one.
    let ifNoneMatch: String?
    /// The client's `Accept-Encoding` lines, joined; nil when it sent none.
    let acceptEncoding: String?
    let started: Double
    let settings: LifecycleSettings
    let rules: ServingRules
    /// Taken with the rules at dispatch, so answering needs no second look at them.
    let redactor: Redactor
    /// A cache refresh with no client waiting: not a request in the metrics or the log.
    let isBackground: Bool
    /// Set only by the events (here and in `RequestLifecycle+Cache.swift`).
    var state = State.routing
    /// The trace the request belongs to (`RequestLifecycle+Tracing.swift`).
    private(set) var trace: RequestTrace
    /// What the answer adds for a browser page (`deliver`): set once the route is known.
    var cors = CORSAnswer.none
    /// The view of a `client-query` route the request asks for (`deliver` makes it).
    var clientView: ClientViewRequest?
    /// Each fetch in flight's client span as it started, while the trace is recorded.
    var fetchSpans: [Int: FetchSpanStart] = [:]
    /// On an `auth` route, once checked: what `reshape_auth_total` counts, and why a token was
    /// refused (for the access log).
    var authCheck: FinishedRequest.AuthCheck?
    var authRefusal: String?
    /// Why the request was shed (`reshape_shed_total`'s label), when it was.
    var shedReason: String?
    /// When the accepted token expires (seconds since the Unix epoch): a live stream ends then.
    var tokenExpiresAt: Double?
    /// The route timer was armed before the exchange (waiting for a verifier's keys): the
    /// exchange does not arm it again, and whatever answers stops it.
    private(set) var routeTimerArmed = false
    /// A `limit:` route's `RateLimit-Policy` and `RateLimit` items, added to its answer.
    var limitPolicyItems: [String] = []
    var limitStateItems: [String] = []
    /// The policy that answered 429, for `reshape_rate_limited_total`.
    var rateLimited: FinishedRequest.RateLimited?
    /// Shared limit checks Redis did not answer, decided here (`reshape_limit_fallbacks_total`).
    var limitFallbacks = 0

    init(
        _ request: HTTPRequest, rules: ServingRules, settings: LifecycleSettings, now: Double,
        isBackground: Bool = false
    ) {
        self.request = request
        ifNoneMatch = request.header("If-None-Match")
        acceptEncoding = request.joinedHeader("Accept-Encoding")
        started = now
        self.settings = settings
        self.rules = rules
        redactor = rules.allSecrets
        self.isBackground = isBackground
        trace = settings.tracer.begin(
            traceparent: request.header("traceparent"), tracestate: request.header("tracestate"),
            recordable: !isBackground)
    }

    /// The state's name.
    var stateName: String { name.rawValue }

    /// The state's `StateName`.
    var name: StateName {
        switch state {
        case .routing: .routing
        case .awaitingKeys: .awaitingKeys
        case .awaitingLimit: .awaitingLimit
        case .refreshPending: .refreshPending
        case .awaitingSharedCache: .awaitingSharedCache
        case .awaitingLiveAnswer: .awaitingLiveAnswer
        case .waitingForLeader: .waitingForLeader
        case .exchanging: .exchanging
        case .responding: .responding
        case .subscribed: .subscribed
        case .answered: .answered
        case .cancelled: .cancelled
        }
    }

    /// Fetches still in flight.
    var fetchesInFlight: [Int] {
        guard case .exchanging(let exchange, _) = state else { return [] }
        return exchange.inFlightIDs
    }

    // MARK: - Events

    /// Decides what to do with a request. `now` is a monotonic time in seconds. `cacheWaiter`
    /// is called (on any thread) when this request waits for another's fetch of the same
    /// cached answer; the server then hands what it delivers to `cacheDelivered`. It is only
    /// evaluated for a route with `cache:`. The server counts the request in flight as it
    /// dispatches it; the `FinishedRequest` it is recorded with at the end takes it out.
    /// `shedding`: the worker's loop runs late (`LoopLag`): a route's request is answered
    /// `503 load-shed` at once; the admin endpoints (health, metrics) are answered as always.
    package static func begin(
        _ request: HTTPRequest, rules: ServingRules, draining: Bool, shedding: Bool = false,
        settings: LifecycleSettings, now: Double,
        cacheWaiter: @autoclosure () -> ResponseCache.Waiter? = nil
    )
        -> (RequestLifecycle, Action)
    {
        let decision = rules.decide(request, endpoints: settings.endpoints)
        return begin(
            request, decision, rules: rules, draining: draining, shedding: shedding, settings: settings, now: now,
            cacheWaiter: cacheWaiter)
    }

    /// What the server does with a request it dispatches: a fresh cached answer that needs no
    /// lifecycle (`CacheHit`), or `begin`'s lifecycle and first action.
    package enum Dispatch {
        case cached(RenderedAnswer, FinishedRequest)
        case lifecycle(RequestLifecycle, Action)
    }

    /// `begin`, but a plain GET that a fresh cached answer serves is answered at once, without
    /// a lifecycle, where nothing else is to be decided for it (`CacheHit`).
    /// `wallClockMilliseconds` is asked for only by such a hit's access-log line.
    package static func dispatch(
        _ request: HTTPRequest, rules: ServingRules, draining: Bool, shedding: Bool,
        settings: LifecycleSettings, now: Double, wallClockMilliseconds: () -> Int,
        cacheWaiter: @autoclosure () -> ResponseCache.Waiter?
    ) -> Dispatch {
        let decision = rules.decide(request, endpoints: settings.endpoints)
        if !draining, !shedding, case .route(let route, let parameters) = decision,
            let (answer, finished) = CacheHit.answer(
                request, route: route, parameters: parameters, rules: rules, settings: settings, now: now,
                wallClockMilliseconds: wallClockMilliseconds)
        {
            return .cached(answer, finished)
        }
        let (lifecycle, action) = begin(
            request, decision, rules: rules, draining: draining, shedding: shedding, settings: settings, now: now,
            cacheWaiter: cacheWaiter)
        return .lifecycle(lifecycle, action)
    }

    private static func begin(
        _ request: HTTPRequest, _ decision: ServingRules.Decision, rules: ServingRules, draining: Bool,
        shedding: Bool, settings: LifecycleSettings, now: Double, cacheWaiter: () -> ResponseCache.Waiter?
    ) -> (RequestLifecycle, Action) {
        let lifecycle = RequestLifecycle(request, rules: rules, settings: settings, now: now)
        // The action first: it changes the lifecycle, which is returned after it.
        let action = lifecycle.route(
            decision, draining: draining, shedding: shedding, now: now, cacheWaiter: cacheWaiter)
        return (lifecycle, action)
    }

    private func route(
        _ decision: ServingRules.Decision, draining: Bool, shedding: Bool, now: Double,
        cacheWaiter: () -> ResponseCache.Waiter?
    ) -> Action {
        guard case .routing = state else { impossible("begin", in: stateName) }
        switch decision {
        case .respond(let response, let route, let errorCode):
            return respond(response, AnswerRecord(routeName: route, errorCode: errorCode))
        case .admin(let name):
            // Probes and scrapes are the platform's, not a client's: a span each would drown the
            // traces that matter.
            trace.recording = false
            // The status page says which routes exist and what was dropped: operators only.
            if name.isEmpty, !operatorMayAsk {
                return respond(Problem.notFound(path: String(request.path)).response, AnswerRecord())
            }
            let response =
                name == CachePurge.name
                ? CachePurge.response(
                    request, operatorMayAsk: operatorMayAsk, routes: rules.ruleSet.routes, cache: settings.cache)
                : settings.admin(name)
            return respond(Self.noStore(response), AnswerRecord())
        case .preflight(let preflight):
            return respond(
                preflight.response, AnswerRecord(routeName: preflight.route, preflight: preflight.result))
        case .route(let shared, let parameters):
            let match = RouteMatch(route: shared, parameters: parameters)
            return routed(match, draining: draining, shedding: shedding, now: now, cacheWaiter: cacheWaiter)
        }
    }

    /// The request has a route: what it is answered, or which check comes first.
    private func routed(
        _ match: RouteMatch, draining: Bool, shedding: Bool, now: Double, cacheWaiter: () -> ResponseCache.Waiter?
    ) -> Action {
        cors = rules.corsAnswer(match.route, request)
        if draining { return respond(Problem.shuttingDown.response, AnswerRecord()) }
        if shedding {
            shedReason = "loop-lag"
            let problem = Problem.loadShed(retryAfter: 1, detail: Problem.loopLagDetail)
            return respond(problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code))
        }
        switch ClientViewRequest.prepare(match.route, request, tapes: rules.viewTapes) {
        case .success(let view): clientView = view
        case .failure(let problem):
            return respond(problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code))
        }
        // A listener that serves no routes is never handed one; if it were, no route here.
        guard settings.canFetch else {
            return respond(Problem.notFound(path: String(request.path)).response, AnswerRecord())
        }
        // Limits on what the request carries come first: a flood of bad tokens is limited too.
        return limitThenGoOn(match, phase: .beforeAuth, now: now, cacheWaiter: cacheWaiter)
    }

    /// The token is checked before anything is looked up or fetched.
    func authorizeThenProceed(_ match: RouteMatch, now: Double, cacheWaiter: () -> ResponseCache.Waiter?) -> Action {
        guard let auth = match.route.auth else { return proceed(match, now: now, cacheWaiter: cacheWaiter) }
        // The loader refuses a route naming a verifier it does not define.
        guard let verifier = rules.ruleSet.verifiers[auth.verifier] else {
            impossible("an auth route without its verifier", in: stateName)
        }
        state = .awaitingKeys(match, refetched: false)
        let timeout = match.route.timeoutMilliseconds
        if timeout != nil { routeTimerArmed = true }
        return .lookUpKeys(verifier, refetch: false, armTimer: timeout)
    }

    /// A route's request that may go on: to its live stream, the cache, or its fetches.
    func proceed(_ match: RouteMatch, now: Double, cacheWaiter: () -> ResponseCache.Waiter?) -> Action {
        if match.route.live != nil {
            if LiveSubscription.asksForStream(request) { return subscribe(match) }
            if let lookUp = lookUpLive(match) { return lookUp }
        }
        return lookUpCache(match, now: now, waiter: cacheWaiter) ?? startExchange(match, lead: nil)
    }

    /// A fetch finished with `result` after `seconds`. The server reports only fetches in
    /// flight: it cancels the others, and a cancelled fetch never reports. It has counted the
    /// fetch's end as its order said (`FetchOrder.counted`). `now` ends the fetch's span (nil:
    /// the request's start plus `seconds`); `retries` is how many times the upstream client
    /// tried it again.
    package func fetchFinished(
        _ id: Int, _ result: UpstreamResult, seconds: Double, now: Double? = nil, retries: Int = 0
    ) -> Action {
        guard case .exchanging(let exchange, let lead) = state else { impossible("fetchFinished", in: stateName) }
        let span = trace.recording ? fetchSpanEnded(id, result, seconds: seconds, now: now, retries: retries) : nil
        let action = follow(
            exchange.fetchFinished(id, result, seconds: seconds), of: exchange, route: exchange.route, lead: lead,
            armTimer: nil)
        guard let span else { return action }
        return .exportSpan(span, then: action)
    }

    /// The route's `timeout` passed: a 504, and every fetch in flight is to be cancelled, each
    /// upstream's circuit counting one timeout. The timer is armed with the first fetches
    /// (`Action.fetch`) and stopped with the answer (`Settlement.stopsRouteTimer`).
    package func timedOut() -> Action {
        switch state {
        case .exchanging(let exchange, let lead):
            return follow(exchange.timedOut(), of: exchange, route: exchange.route, lead: lead, armTimer: nil)
        case .awaitingKeys(let match, _):
            authCheck = match.route.auth.map { FinishedRequest.AuthCheck(verifier: $0.verifier, result: "unavailable") }
            return respond(
                Problem.authUnavailable.response,
                AnswerRecord(routeName: match.route.name, errorCode: Problem.authUnavailable.code))
        // The timer armed while the request waited for keys runs on past them: it may end the
        // request wherever it waits next.
        case .awaitingLimit(let match, _, _), .awaitingLiveAnswer(let match), .waitingForLeader(let match, _):
            return timedOutWaiting(match)
        case .awaitingSharedCache(let match, let lead):
            return timedOutWaiting(match, settlement: Settlement(wake: abandon(lead)))
        case .routing, .refreshPending, .responding, .subscribed, .answered, .cancelled:
            impossible("timedOut", in: stateName)
        }
    }

    /// 504 `route-timeout` for a request that was waiting, not fetching: nothing to cancel;
    /// a cache key it leads goes to one of its waiters (`settlement`).
    private func timedOutWaiting(_ match: RouteMatch, settlement: Settlement = Settlement()) -> Action {
        let milliseconds = match.route.timeoutMilliseconds ?? 0
        let problem = Problem(
            status: 504, code: "route-timeout", title: "Route timed out",
            detail: "the route's timeout (\(milliseconds) ms) passed before its answer was ready",
            extra: [.init(key: "route", value: .string(match.route.name))])
        return respond(
            problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code),
            settlement: settlement)
    }

    /// The answer was passed on: what to record of the request (`Action.record`).
    /// `wallClockMilliseconds` is the Unix time its access-log line carries.
    package func answered(_ response: HTTPResponse, now: Double, wallClockMilliseconds: Int) -> Action {
        guard case .responding(let record) = state else { impossible("answered", in: stateName) }
        state = .answered
        var finished = FinishedRequest(outcome: .background, route: record.routeName)
        finished.auth = authCheck
        finished.shedReason = shedReason
        finished.rateLimited = rateLimited
        finished.limitFallbacks = limitFallbacks
        finished.tapeBytes = record.exchange?.tapeBytes ?? 0
        finished.cacheSkip = cacheSkip(response, record)
        finished.corsPreflight = record.preflight.map { (record.routeName ?? "-", $0.rawValue) }
        if !record.dropped.isEmpty {
            // The status page shows them as the access log does: with the route's secrets out.
            let redactor = record.exchange?.redactor ?? self.redactor
            finished.dropped = record.dropped.map {
                DroppedElement(pointer: redactor.redact($0.pointer), type: $0.type, reason: redactor.redact($0.reason))
            }
        }
        if isBackground { return .record(finished) }
        let seconds = now - started
        finished.outcome = .answered(status: response.status, seconds: seconds)
        finished.cacheStatus = response.headers.first(where: { $0.name == CacheStatus.headerName })?.value
        if trace.recording { finished.span = serverSpanEnded(response, record, now: now) }
        guard settings.accessLog else { return .record(finished) }
        let path = String(request.path)
        let exchange = record.exchange
        var entry = AccessLogEntry(
            timeMilliseconds: wallClockMilliseconds, method: request.method, path: path,
            route: record.routeName, status: response.status,
            upstreamStatus: exchange?.upstreamStatus,
            durationMilliseconds: seconds * 1000,
            upstreamMilliseconds: exchange.map { $0.upstreamSeconds * 1000 },
            bytes: response.body.count, dropped: record.dropped, errorCode: record.errorCode,
            fetches: exchange?.fetchCount ?? 0, traceID: trace.context.traceID)
        entry.authReason = authRefusal
        finished.accessLogLine = entry.line(redactor: record.redactor ?? exchange?.redactor ?? redactor)
        return .record(finished)
    }

    /// The client went away before the answer: what it still has running is stopped, a fetch
    /// it leads for the cache is handed to one of its waiters, and it is no longer in flight.
    /// The server only cancels requests it has not answered.
    package func cancelled() -> Action {
        var settlement = Settlement()
        switch state {
        case .refreshPending(_, let lead), .awaitingSharedCache(_, let lead):
            settlement.wake = abandon(lead)
        case .exchanging(let exchange, let lead):
            settlement.cancel = exchange.inFlightIDs.map { FetchCancel(id: $0) }
            settlement.stopsRouteTimer = exchange.route.timeoutMilliseconds != nil
            if let lead { settlement.wake = abandon(lead) }
        case .waitingForLeader:
            break  // its waiter stays with the cache; what it delivers finds the request gone
        case .awaitingLiveAnswer, .awaitingKeys, .awaitingLimit:
            break  // it leads nothing and runs nothing yet
        case .routing, .responding, .subscribed, .answered, .cancelled:
            impossible("cancelled", in: stateName)
        }
        if routeTimerArmed { settlement.stopsRouteTimer = true }
        state = .cancelled
        var finished = FinishedRequest(outcome: isBackground ? .background : .cancelled)
        finished.auth = authCheck
        finished.limitFallbacks = limitFallbacks
        return .cancel(settlement, finished)
    }

    // MARK: - Transitions

    /// Starts the route's fetches (no cached answer to give), arming the route timer with them.
    func startExchange(_ match: RouteMatch, lead: CacheLead?) -> Action {
        let (exchange, action) = RouteExchange.start(
            request, route: match.route, parameters: match.parameters,
            rules: rules, trace: (trace.context, settings.tracer))
        if let exchange { state = .exchanging(exchange, lead: lead) }
        return follow(
            action, of: exchange, route: match.route, lead: lead,
            armTimer: routeTimerArmed ? nil : match.route.timeoutMilliseconds)
    }

    /// The exchange's next step as this request's: fetches (`armTimer`: the route timer to arm
    /// with them), or its answer, which gets the route's caching headers, settles the cache key
    /// this request leads, stops what is still running, and is what the request answers.
    private func follow(
        _ action: RouteExchange.Action, of exchange: RouteExchange?, route: Route, lead: CacheLead?,
        armTimer: Int?
    ) -> Action {
        switch action {
        case .wait: return .wait
        case .fetch(let orders):
            if trace.recording, let exchange { fetchSpansStarted(orders, of: exchange) }
            return .fetch(orders, armTimer: armTimer)
        case .respond(var rendered, let cancel):
            if rendered.errorCode == nil, (200..<300).contains(rendered.response.status) {
                rendered.response.headers += CachingHeaders.route(
                    forwarded: route.varyHeaders, maxAge: nil, upstream: exchange?.cacheControl ?? CacheControl())
            }
            // A timer was armed with the exchange's first fetches, if the route has a timeout.
            var settlement = Settlement(
                cancel: cancel,
                stopsRouteTimer: routeTimerArmed || (exchange != nil && route.timeoutMilliseconds != nil))
            var response = rendered.response
            var entry: ResponseCache.Entry?
            if let lead { (response, entry) = settle(rendered, lead: lead, exchange: exchange, into: &settlement) }
            state = .responding(
                AnswerRecord(
                    routeName: route.name, exchange: exchange, dropped: rendered.dropped,
                    errorCode: rendered.errorCode))
            return .respond(deliver(response, entry: entry), settlement)
        }
    }

    /// Answers `response` (`entry`: the cache entry it came from), with nothing in flight;
    /// `settlement` wakes the waiters of a key it leads.
    func respond(
        _ response: HTTPResponse, _ record: AnswerRecord, entry: ResponseCache.Entry? = nil,
        settlement: Settlement = Settlement()
    ) -> Action {
        state = .responding(record)
        var settlement = settlement
        if routeTimerArmed { settlement.stopsRouteTimer = true }
        return .respond(deliver(response, entry: entry), settlement)
    }

    /// Whether this client may use an operator's endpoint (the cache purge, the status page): on
    /// the admin listener, or, without one, from a loopback address. Everyone else is told there
    /// is no such path.
    var operatorMayAsk: Bool {
        settings.endpoints == .admin || (settings.endpoints == .all && request.fromLoopback)
    }
}

extension RequestLifecycle {
    /// A `cache:` route's fetched answer that was not stored because of its upstreams'
    /// `Cache-Control`: counted, and said once per route and rule set with the setting that
    /// would change it.
    func cacheSkip(_ response: HTTPResponse, _ record: AnswerRecord) -> FinishedRequest.CacheSkip? {
        // A 304 was a fetched 200 too, made `Not Modified` for a client that held it.
        guard settings.cache != nil, response.status == 200 || response.status == 304, record.errorCode == nil,
            let exchange = record.exchange,
            exchange.route.cache != nil, let reason = exchange.cacheControl.skipReason
        else { return nil }
        let route = exchange.route.name
        let notice =
            rules.firstCacheSkip(route: route)
            ? "route \(route): answers are not cached because an upstream says Cache-Control: \(reason); "
                + "`cache: { upstream-cache-control: ignore }` lets the route's ttl decide"
            : nil
        return FinishedRequest.CacheSkip(route: route, reason: reason, notice: notice)
    }
}
