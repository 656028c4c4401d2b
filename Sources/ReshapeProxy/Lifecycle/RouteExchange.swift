import ReshapeJSON
import ReshapeRules

/// A fetch for the server to start; `id` names it when it finishes or is cancelled.
public struct FetchOrder: Sendable {
    public var id: Int
    public var request: UpstreamRequest
}

/// One routed request's upstream work, as pure logic: the route's fetches all at once, then
/// each `expand`'s follow-ups (de-duplicated, at most `concurrency` in flight), then the
/// answer. The server starts what it is handed and reports what finished; cancelling what is
/// still in flight when the answer is decided early is part of the answer.
///
/// A class, not a struct, like the lifecycle that owns it: it holds the route and every
/// fetch's state, and as a value all of it was copied (and retained) at every event, which
/// cost a 3 KB request about a fifth of its CPU. One request's exchange is only ever touched
/// on its connection's loop.
final class RouteExchange: @unchecked Sendable {
    enum Reaction: Sendable {
        case wait
        case fetch([FetchOrder])
        /// The answer; `cancel` lists the fetches still in flight, to stop now.
        case respond(ResponseRenderer.Rendered, cancel: [Int])
    }

    private enum Pending: Sendable {
        case primary(index: Int)
        case followUp(value: String)
    }

    /// A fetch's body as the transform's input, or its absence.
    private enum Fetched: Sendable {
        case tape(JSONTape)
        /// A failed optional fetch: `null` in the input.
        case absent
        /// A write's 2xx without content: answered with the upstream's status and no body.
        case noContent(status: Int)
    }

    /// Statuses that answer the client's own credentials or data on routes that forward them.
    static let clientVerdicts: Set<Int> = [401, 403, 409, 422, 429]
    /// The largest upstream error body shown under `upstream-error`.
    static let maxExposedErrorBytes = 4096

    let route: Route
    private let parameters: [String: String]
    private let rules: ServingRules
    private let rawQuery: Substring
    /// Forwarded client headers, the route's headers, and their secrets: sent on every fetch.
    private let extras: OutgoingExtras
    private let requestBody: (bytes: [UInt8], contentType: String)?
    let redactor: Redactor
    private var inFlight: [Int: Pending] = [:]
    private var nextID = 0
    private var primaries: [Fetched?]
    private var run: RouteRun
    private var expand: ExpandRule?
    private var queue: ArraySlice<String> = []
    private var outcomes: [String: RouteRun.FollowUp] = [:]
    private(set) var fetchCount = 0
    /// The single fetch's status (the first fetch's on a `fetch:` route), for the access log.
    private(set) var upstreamStatus: Int?
    private(set) var upstreamSeconds: Double = 0
    /// What the upstreams' `Cache-Control` allows for the answer built from them.
    private(set) var cacheControl = CacheControl()

    /// Checks the client's body and builds the route's fetches; a problem instead when the
    /// request cannot go upstream.
    static func start(_ request: HTTPRequest, route: Route, parameters: [String: String],
                      rules: ServingRules) -> (RouteExchange?, Reaction) {
        let body: (bytes: [UInt8], contentType: String)?
        switch ClientBody.prepare(request, route: route, parameters: parameters) {
        case .failure(let problem): return (nil, .respond(.init(problem, code: problem.code), cancel: []))
        case .success(let prepared): body = prepared
        }
        var headers: [NameValue] = []
        var secrets = route.secrets
        for name in route.forwardHeaders where ForwardedHeaderPolicy.mayForward(name) {
            for header in request.headers where RequestFraming.equalsIgnoringCase(header.name, name) {
                headers.append(header)
                secrets.append(header.value)
            }
        }
        headers += route.headers.map { NameValue(name: $0.name, value: $0.value(parameters)) }
        // Forwarded values are secrets too; without any, the route's prebuilt redactor serves.
        let redactor = secrets.count == route.secrets.count ? (rules.routeRedactors[route.name] ?? rules.allSecrets)
            : Redactor(secrets: ServingRules.secrets(of: route, in: rules.ruleSet) + secrets)
        let exchange = RouteExchange(route: route, parameters: parameters, rules: rules, rawQuery: request.rawQuery,
                                     extras: OutgoingExtras(headers: headers, timeoutMilliseconds: route.timeoutMilliseconds,
                                                            secrets: secrets),
                                     requestBody: body, redactor: redactor)
        var orders: [FetchOrder] = []
        for (index, fetch) in route.fetches.enumerated() {
            switch exchange.order(fetch, method: route.method, parameters: parameters, query: request.rawQuery, body: body) {
            case .failure(let problem):
                return (nil, .respond(.init(problem, code: problem.code), cancel: []))
            case .success(let request):
                orders.append(exchange.issue(request, as: .primary(index: index)))
            }
        }
        return (exchange, .fetch(orders))
    }

    private init(route: Route, parameters: [String: String], rules: ServingRules, rawQuery: Substring,
                 extras: OutgoingExtras, requestBody: (bytes: [UInt8], contentType: String)?, redactor: Redactor) {
        self.route = route
        self.parameters = parameters
        self.rules = rules
        self.rawQuery = rawQuery
        self.extras = extras
        self.requestBody = requestBody
        self.redactor = redactor
        primaries = Array(repeating: nil, count: route.fetches.count)
        run = RouteRun(route: route, parameters: parameters)
    }

    /// Fetches still in flight.
    var inFlightIDs: [Int] { inFlight.keys.sorted() }

    /// The upstream a fetch in flight talks to (for its metrics).
    func upstreamName(of id: Int) -> String? {
        switch inFlight[id] {
        case .primary(let index): route.fetches[index].upstream
        case .followUp: expand?.fetch.upstream
        case nil: nil
        }
    }

    private func order(_ fetch: FetchRule, method: String, parameters: [String: String], query: Substring,
                       body: (bytes: [UInt8], contentType: String)?) -> Result<UpstreamRequest, Problem> {
        guard let upstream = rules.ruleSet.upstreams[fetch.upstream] else {
            return .failure(Problem(status: 500, code: "internal", title: "Internal error", detail: "unknown upstream"))
        }
        var extras = self.extras
        if let body {
            extras.body = body.bytes
            extras.headers.append(NameValue(name: "Content-Type", value: body.contentType))
        }
        do {
            return .success(try UpstreamRequestBuilder.build(fetch: fetch, method: method, route: route, upstream: upstream,
                                                             parameters: parameters, rawQuery: query, extras: extras))
        } catch {
            return .failure(error)
        }
    }

    private func issue(_ request: UpstreamRequest, as pending: Pending) -> FetchOrder {
        let id = nextID
        nextID += 1
        inFlight[id] = pending
        fetchCount += 1
        return FetchOrder(id: id, request: request)
    }

    /// A fetch finished: what to do next.
    func finished(_ id: Int, _ result: UpstreamResult, seconds: Double) -> Reaction {
        guard let pending = inFlight.removeValue(forKey: id) else { return .wait }
        upstreamSeconds = max(upstreamSeconds, seconds)
        if case .response(let response) = result { cacheControl = cacheControl.combined(with: CacheControl(header: response.cacheControl)) }
        switch pending {
        case .primary(let index):
            if index == 0, case .response(let response) = result { upstreamStatus = response.status }
            switch classify(result, fetch: route.fetches[index]) {
            case .failure(let problem): return fail(problem)
            case .success(let fetched): primaries[index] = fetched
            }
            guard inFlight.isEmpty else { return .wait }
            return startRun()
        case .followUp(let value):
            switch followUpOutcome(result, value: value) {
            case .failure(let problem): return fail(problem)
            case .success(let outcome): outcomes[value] = outcome
            }
            return continueFollowUps()
        }
    }

    /// The route's `timeout` passed before the answer.
    func timedOut() -> Reaction {
        let milliseconds = route.timeoutMilliseconds ?? 0
        let problem = Problem(status: 504, code: "route-timeout", title: "Route timed out",
                              detail: "the route's timeout (\(milliseconds) ms) passed with \(inFlight.count) fetches in flight",
                              extra: [.init(key: "route", value: .string(route.name))])
        return fail(problem)
    }

    private func fail(_ problem: Problem) -> Reaction {
        let cancel = inFlightIDs
        inFlight.removeAll()
        queue = []
        return .respond(.init(problem, code: problem.code), cancel: cancel)
    }

    // MARK: - Primary fetches

    private func context(for fetch: FetchRule) -> ResponseRenderer.Context {
        .init(route: route.name, upstream: fetch.upstream, fetch: route.isSingleFetch ? nil : fetch.name, redactor: redactor)
    }

    /// A primary fetch's result as input, or the problem that answers the request.
    private func classify(_ result: UpstreamResult, fetch: FetchRule) -> Result<Fetched, Problem> {
        let context = context(for: fetch)
        if case .response(let response) = result {
            if route.speaksForClient, Self.clientVerdicts.contains(response.status), !fetch.optional {
                return .failure(rejected(response, context: context))
            }
            if (200..<300).contains(response.status), route.method != "GET", route.isSingleFetch,
               response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                return .success(.noContent(status: response.status))
            }
        }
        switch ResponseRenderer.decode(result, context: context) {
        case .success(let tape):
            return .success(.tape(tape))
        case .failure(let problem):
            if fetch.optional { return .success(.absent) }
            if route.isSingleFetch || problem.status == 404 { return .failure(problem) }
            var failed = context.problem(502, "fetch-failed", "A fetch failed", "fetch '\(fetch.name)' failed: \(problem.detail)",
                                         [.init(key: "reason", value: .string(problem.code))])
            failed.extra += problem.extra.filter { !["route", "upstream", "fetch"].contains($0.key) }
            return .failure(failed)
        }
    }

    /// The upstream refused the client's credentials or data: the same status, as a problem.
    private func rejected(_ response: UpstreamResponse, context: ResponseRenderer.Context) -> Problem {
        let status = response.status
        var extra: [JSONMember] = [.init(key: "upstream_status", value: .number(JSONNumber(status)))]
        if route.exposeUpstreamErrors, response.body.count <= Self.maxExposedErrorBytes,
           response.contentType.map({ $0.lowercased().contains("json") }) ?? false,
           let value = try? JSON.parse(response.body) {
            extra.append(.init(key: "upstream-error", value: value))
        }
        var problem = context.problem(status, "upstream-rejected", "Upstream rejected the request",
                                      "the upstream answered \(status) \(HTTPResponse.reason(status))", extra)
        if let retryAfter = response.retryAfter, !retryAfter.isEmpty, retryAfter.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            problem.extraHeaders.append(NameValue(name: "Retry-After", value: retryAfter))
        }
        return problem
    }

    /// All primary fetches are in: run the transform.
    private func startRun() -> Reaction {
        let context = context(for: route.fetches[0])
        do {
            if route.isSingleFetch {
                switch primaries[0] {
                case .tape(let tape): return progress(try run.start(tape))
                case .noContent(let status):
                    return .respond(.init(response: HTTPResponse(status: status), dropped: [], errorCode: nil), cancel: [])
                case .absent, nil: return progress(try run.start(JSON.null))
                }
            }
            var bodies: [(name: String, body: JSON?)] = []
            for (fetch, fetched) in zip(route.fetches, primaries) {
                if case .tape(let tape) = fetched { bodies.append((fetch.name, tape.materialize(tape.root))) } else { bodies.append((fetch.name, nil)) }
            }
            return progress(try run.start(RouteRun.fanOutInput(bodies)))
        } catch {
            return fail(ResponseRenderer.pipelineProblem(error, context: context))
        }
    }

    private func progress(_ progress: RouteRun.Progress) -> Reaction {
        switch progress {
        case .done(let output):
            let status: Int
            if route.method != "GET", route.isSingleFetch, let code = upstreamStatus, (200..<300).contains(code) {
                status = code  // a write's 201 or 202 stays what the upstream said
            } else {
                status = 200
            }
            return .respond(ResponseRenderer.success(output, status: status, entityTag: route.method == "GET"), cancel: [])
        case .followUps(let rule, let values):
            expand = rule
            queue = values[...]
            outcomes = [:]
            return continueFollowUps()
        }
    }

    // MARK: - Follow-up fetches

    /// Starts follow-ups up to the concurrency bound; resumes the run when all are in.
    private func continueFollowUps() -> Reaction {
        guard let expand else { return .wait }
        var orders: [FetchOrder] = []
        while inFlight.count < expand.concurrency, let value = queue.popFirst() {
            var captures = parameters
            captures["value"] = value
            switch order(expand.fetch, method: "GET", parameters: captures, query: "", body: nil) {
            case .success(let request): orders.append(issue(request, as: .followUp(value: value)))
            // A value that cannot be a path segment (".", "..") is never fetched: it is missing.
            case .failure: outcomes[value] = .notFound
            }
        }
        if !orders.isEmpty { return .fetch(orders) }
        guard inFlight.isEmpty, queue.isEmpty else { return .wait }
        self.expand = nil
        do {
            return progress(try run.resume(outcomes))
        } catch {
            return fail(ResponseRenderer.pipelineProblem(error, context: context(for: route.fetches[0])))
        }
    }

    /// A follow-up's result: a body, missing (404), or the problem that fails the request.
    private func followUpOutcome(_ result: UpstreamResult, value: String) -> Result<RouteRun.FollowUp, Problem> {
        guard let expand else { return .success(.notFound) }
        if case .response(let response) = result, response.status == 404 { return .success(.notFound) }
        let context = ResponseRenderer.Context(route: route.name, upstream: expand.fetch.upstream, fetch: expand.member, redactor: redactor)
        switch ResponseRenderer.decode(result, context: context) {
        case .success(let tape): return .success(.body(tape))
        case .failure(let problem):
            var failed = context.problem(502, "fetch-failed", "A follow-up fetch failed",
                                         "the '\(expand.member)' follow-up for '\(value)' failed: \(problem.detail)",
                                         [.init(key: "reason", value: .string(problem.code))])
            failed.extra += problem.extra.filter { !["route", "upstream", "fetch"].contains($0.key) }
            return .failure(failed)
        }
    }
}
