import ReshapeRules

/// What a listener's requests share, set once per listener.
public struct LifecycleSettings: Sendable {
    /// Which endpoints this listener answers.
    public var endpoints: Endpoints
    /// False on a listener without an upstream client (the admin one): it never fetches.
    public var canFetch: Bool
    public var accessLog: Bool
    public var metrics: Metrics
    /// The process's answer cache; nil: routes with `cache:` are fetched every time.
    public var cache: ResponseCache?
    /// Stores an answer in the cache replicas share (its key, the answer); nil without one. When
    /// set, a local miss asks the shared cache (`Step.lookUpShared`) before fetching.
    public var sharedStore: (@Sendable (String, ResponseCache.Stored) -> Void)?
    /// `/_reshape/<name>`: the server's admin answers (they report process-wide state).
    public var admin: @Sendable (String) -> HTTPResponse

    public init(endpoints: Endpoints, canFetch: Bool, accessLog: Bool, metrics: Metrics, cache: ResponseCache? = nil,
                admin: @escaping @Sendable (String) -> HTTPResponse) {
        self.endpoints = endpoints
        self.canFetch = canFetch
        self.accessLog = accessLog
        self.metrics = metrics
        self.cache = cache
        self.admin = admin
    }
}

/// One client request from dispatch to answer, as pure logic: the decision (answer at once or
/// fetch), the route's fetches and follow-ups (`RouteExchange`), the rendering, the metrics,
/// and the access-log line. The server only starts the fetches it is handed, cancels the ones
/// it is told to, and writes the response it gets back; nothing here touches a socket or a
/// clock (times come in as arguments), so every rule is tested without I/O.
///
/// A class, not a struct: it carries the request, the listener's settings and the exchange,
/// several hundred bytes that as a value were copied (and their references retained) at every
/// hand-over between the server's tables and closures, about 8% of a small request's
/// instructions. One request's lifecycle is only ever touched on its connection's loop.
public final class RequestLifecycle: @unchecked Sendable {
    public enum Step: Sendable {
        /// Answer now; stop the fetches in `cancel` (still in flight) first.
        case respond(HTTPResponse, cancel: [Int])
        /// Start these fetches and call `fetchFinished` with each one's result.
        case fetch([FetchOrder])
        /// Nothing to do until another fetch finishes.
        case wait
        /// Ask the shared cache (Redis) for this key and call `sharedLookupFinished`.
        case lookUpShared(String)
    }

    let request: HTTPRequest
    /// The client's `If-None-Match`, when it sent one.
    private let ifNoneMatch: String?
    let started: Double
    let settings: LifecycleSettings
    let rules: ServingRules
    /// Taken with the rules at dispatch, so answering needs no second look at them.
    private let redactor: Redactor
    var exchange: RouteExchange?
    var routeName: String?
    var dropped: [DroppedElement] = []
    var errorCode: String?
    /// What this request does with the answer cache.
    var cacheRole = CacheRole.none
    /// A refresh run for the cache with no client waiting: not a request in the metrics or the log.
    var isBackground = false
    /// Set by a stale answer that must start the one background refresh.
    var pendingRefresh: PendingRefresh?
    /// The route and captures a shared-cache lookup is for, until it answers.
    var sharedLookup: (route: Route, parameters: [String: String])?

    init(_ request: HTTPRequest, rules: ServingRules, settings: LifecycleSettings, now: Double) {
        self.request = request
        ifNoneMatch = request.header("If-None-Match")
        started = now
        self.settings = settings
        self.rules = rules
        redactor = rules.allSecrets
    }

    /// Decides what to do with a request. `now` is a monotonic time in seconds. `cacheWaiter`
    /// is called (on any thread) when this request waits for another's fetch of the same
    /// cached answer; the server then hands what it delivers to `cacheDelivered`. It is only
    /// evaluated for a route with `cache:`.
    public static func begin(_ request: HTTPRequest, rules: ServingRules, draining: Bool,
                             settings: LifecycleSettings, now: Double,
                             cacheWaiter: @autoclosure () -> ResponseCache.Waiter? = nil) -> (RequestLifecycle, Step) {
        let lifecycle = RequestLifecycle(request, rules: rules, settings: settings, now: now)
        settings.metrics.requestStarted()
        switch rules.decide(request, endpoints: settings.endpoints) {
        case .respond(let response, let route, let errorCode):
            lifecycle.routeName = route
            lifecycle.errorCode = errorCode
            return (lifecycle, .respond(response, cancel: []))
        case .admin(let name):
            if let purge = lifecycle.cachePurge(name) { return (lifecycle, .respond(purge, cancel: [])) }
            return (lifecycle, .respond(settings.admin(name), cancel: []))
        case .route(let route, let parameters):
            if draining { return (lifecycle, .respond(Problem.shuttingDown.response, cancel: [])) }
            // A listener that serves no routes is never handed one; if it were, no route here.
            guard settings.canFetch else { return (lifecycle, .respond(Problem.notFound(path: String(request.path)).response, cancel: [])) }
            lifecycle.routeName = route.name
            // The step first: it changes the lifecycle, which is returned after it.
            let step = lifecycle.lookUpCache(route: route, parameters: parameters, now: now, waiter: cacheWaiter)
                ?? lifecycle.startExchange(route: route, parameters: parameters)
            return (lifecycle, step)
        }
    }

    /// Starts the route's fetches (no cached answer to give).
    func startExchange(route: Route, parameters: [String: String]) -> Step {
        let (exchange, reaction) = RouteExchange.start(request, route: route, parameters: parameters, rules: rules)
        self.exchange = exchange
        return step(for: reaction)
    }

    /// The route's `timeout` in milliseconds, when it has one: the server calls `timedOut`
    /// after it unless the request was answered.
    public var timeoutMilliseconds: Int? { exchange?.route.timeoutMilliseconds }

    /// A fetch finished with `result` after `seconds`.
    public func fetchFinished(_ id: Int, _ result: UpstreamResult, seconds: Double) -> Step {
        guard let exchange else { return .wait }
        if let upstream = exchange.upstreamName(of: id) {
            var failure: UpstreamFailure?
            if case .failure(let kind, _) = result { failure = kind }
            settings.metrics.recordUpstream(upstream: upstream, seconds: seconds, failure: failure)
            settings.metrics.recordFetch(route: exchange.route.name, upstream: upstream)
        }
        return step(for: exchange.fetchFinished(id, result, seconds: seconds))
    }

    /// The route's `timeout` passed: a 504, and every fetch in flight is to be cancelled.
    public func timedOut() -> Step {
        guard let exchange else { return .wait }
        return step(for: exchange.timedOut())
    }

    /// Fetches still in flight (to cancel when the client goes away).
    public var fetchesInFlight: [Int] { exchange?.inFlightIDs ?? [] }

    func step(for reaction: RouteExchange.Action) -> Step {
        switch reaction {
        case .wait: return .wait
        case .fetch(let orders): return .fetch(orders)
        case .respond(let rendered, let cancel):
            dropped = rendered.dropped
            errorCode = rendered.errorCode
            if let route = routeName {
                for element in rendered.dropped { settings.metrics.recordDropped(route: route, type: element.type) }
            }
            let response = settleCache(rendered)
            return .respond(notModified(response) ?? response, cancel: cancel)
        }
    }

    /// `304 Not Modified`, with the tag and no content, when the client already has this answer.
    func notModified(_ response: HTTPResponse) -> HTTPResponse? {
        guard response.status == 200, let ifNoneMatch,
              let tag = response.headers.first(where: { $0.name == "ETag" })?.value,
              EntityTag.ifNoneMatch(ifNoneMatch, matches: tag) else { return nil }
        return HTTPResponse(status: 304, headers: response.headers.filter { $0.name != "Content-Type" }, body: [])
    }

    /// Records the answer; returns the access-log line when access logging is on.
    /// `wallClockMilliseconds` is the Unix time the line carries.
    public func answered(_ response: HTTPResponse, now: Double, wallClockMilliseconds: Int) -> [UInt8]? {
        if isBackground { return nil }
        let seconds = now - started
        settings.metrics.requestFinished()
        settings.metrics.recordRequest(route: routeName ?? "-", status: response.status, seconds: seconds)
        guard settings.accessLog else { return nil }
        let path = String(request.path)
        let entry = AccessLogEntry(timeMilliseconds: wallClockMilliseconds, method: request.method, path: path, route: routeName,
                                   status: response.status, upstreamStatus: exchange?.upstreamStatus,
                                   durationMilliseconds: seconds * 1000,
                                   upstreamMilliseconds: exchange.map { $0.upstreamSeconds * 1000 },
                                   bytes: response.body.count, dropped: dropped, errorCode: errorCode,
                                   fetches: exchange?.fetchCount ?? 0)
        return entry.line(redactor: exchange?.redactor ?? redactor)
    }

    /// The client went away before the answer: the request is no longer in flight.
    public func cancelled() {
        abandonCache()
        if !isBackground { settings.metrics.requestFinished() }
    }
}
