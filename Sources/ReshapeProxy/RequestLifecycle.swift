import ReshapeRules

/// What a listener's requests share, set once per listener.
public struct LifecycleSettings: Sendable {
    /// Which endpoints this listener answers.
    public var endpoints: Endpoints
    /// False on a listener without an upstream client (the admin one): it never fetches.
    public var canFetch: Bool
    public var accessLog: Bool
    public var metrics: Metrics
    /// `/_reshape/<name>`: the server's admin answers (they report process-wide state).
    public var admin: @Sendable (String) -> HTTPResponse

    public init(endpoints: Endpoints, canFetch: Bool, accessLog: Bool, metrics: Metrics,
                admin: @escaping @Sendable (String) -> HTTPResponse) {
        self.endpoints = endpoints
        self.canFetch = canFetch
        self.accessLog = accessLog
        self.metrics = metrics
        self.admin = admin
    }
}

/// One client request from dispatch to answer, as pure logic: the decision (answer at once or
/// fetch), the rendering of the upstream's result, the metrics, and the access-log line. The
/// server only starts the fetch it is handed and writes the response it gets back; nothing here
/// touches a socket or a clock (times come in as arguments), so every rule is tested without I/O.
public struct RequestLifecycle: Sendable {
    public enum Step: Sendable {
        /// Answer at once: an error, an admin endpoint, or the draining 503.
        case respond(HTTPResponse)
        /// Start this fetch and call `upstreamFinished` with its result.
        case fetch(UpstreamRequest)
    }

    private let method: String
    private let target: String
    /// The client's `If-None-Match`, when it sent one.
    private let ifNoneMatch: String?
    private let started: Double
    private let settings: LifecycleSettings
    /// Taken with the rules at dispatch, so answering needs no second look at them.
    private let redactor: Redactor
    private var route: Route?
    /// The route's upstream's secrets, for what its failures say.
    private var upstreamRedactor: Redactor?
    private var routeName: String?
    private var parameters: [String: String] = [:]
    private var upstreamStatus: Int?
    private var upstreamSeconds: Double?
    private var dropped: [DroppedElement] = []
    private var errorCode: String?

    private init(_ request: HTTPRequest, rules: ServingRules, settings: LifecycleSettings, now: Double) {
        method = request.method
        target = request.target
        ifNoneMatch = request.header("If-None-Match")
        started = now
        self.settings = settings
        redactor = rules.allSecrets
    }

    /// Decides what to do with a request. `now` is a monotonic time in seconds.
    public static func begin(_ request: HTTPRequest, rules: ServingRules, draining: Bool,
                             settings: LifecycleSettings, now: Double) -> (RequestLifecycle, Step) {
        var lifecycle = RequestLifecycle(request, rules: rules, settings: settings, now: now)
        settings.metrics.requestStarted()
        switch rules.decide(request, endpoints: settings.endpoints) {
        case .respond(let response, let route, let errorCode):
            lifecycle.routeName = route
            lifecycle.errorCode = errorCode
            return (lifecycle, .respond(response))
        case .admin(let name):
            return (lifecycle, .respond(settings.admin(name)))
        case .fetch(let upstreamRequest, let route, let parameters):
            if draining { return (lifecycle, .respond(Problem.shuttingDown.response)) }
            // A listener that serves no routes is never told to fetch; if it were, no route here.
            guard settings.canFetch else { return (lifecycle, .respond(Problem.notFound(path: String(request.path)).response)) }
            lifecycle.route = route
            lifecycle.upstreamRedactor = rules.redactor(for: route.upstream)
            lifecycle.routeName = route.name
            lifecycle.parameters = parameters
            return (lifecycle, .fetch(upstreamRequest))
        }
    }

    /// The response for what the upstream answered (decoded, transformed, validated, encoded).
    public mutating func upstreamFinished(_ result: UpstreamResult, seconds: Double) -> HTTPResponse {
        guard let route else { return Problem(status: 500, code: "internal", title: "Internal error", detail: "no route").response }
        let rendered = ResponseRenderer.render(result, route: route, parameters: parameters,
                                               redactor: upstreamRedactor ?? redactor)
        var failure: UpstreamFailure?
        switch result {
        case .failure(let kind, _): failure = kind
        case .response(let status, _, _): upstreamStatus = status
        }
        upstreamSeconds = seconds
        dropped = rendered.dropped
        errorCode = rendered.errorCode
        settings.metrics.recordUpstream(upstream: route.upstream, seconds: seconds, failure: failure)
        for element in rendered.dropped { settings.metrics.recordDropped(route: route.name, type: element.type) }
        return notModified(rendered.response) ?? rendered.response
    }

    /// `304 Not Modified`, with the tag and no content, when the client already has this answer.
    private func notModified(_ response: HTTPResponse) -> HTTPResponse? {
        guard response.status == 200, let ifNoneMatch,
              let tag = response.headers.first(where: { $0.name == "ETag" })?.value,
              EntityTag.ifNoneMatch(ifNoneMatch, matches: tag) else { return nil }
        return HTTPResponse(status: 304, headers: response.headers.filter { $0.name != "Content-Type" }, body: [])
    }

    /// Records the answer; returns the access-log line when access logging is on.
    /// `wallClockMilliseconds` is the Unix time the line carries.
    public func answered(_ response: HTTPResponse, now: Double, wallClockMilliseconds: Int) -> [UInt8]? {
        let seconds = now - started
        settings.metrics.requestFinished()
        settings.metrics.recordRequest(route: routeName ?? "-", status: response.status, seconds: seconds)
        guard settings.accessLog else { return nil }
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        let entry = AccessLogEntry(timeMilliseconds: wallClockMilliseconds, method: method, path: path, route: routeName,
                                   status: response.status, upstreamStatus: upstreamStatus,
                                   durationMilliseconds: seconds * 1000, upstreamMilliseconds: upstreamSeconds.map { $0 * 1000 },
                                   bytes: response.body.count, dropped: dropped, errorCode: errorCode)
        return entry.line(redactor: redactor)
    }

    /// The client went away before the answer: the request is no longer in flight.
    public func cancelled() {
        settings.metrics.requestFinished()
    }
}
