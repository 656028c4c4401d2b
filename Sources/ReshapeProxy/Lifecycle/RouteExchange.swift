import ReshapeJSON
import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// One routed request's upstream work, as pure logic: the route's fetches all at once, then
/// each `expand`'s follow-ups (de-duplicated, at most `concurrency` in flight), then the
/// answer. The server starts what it is handed and reports what finished; cancelling what is
/// still in flight when the answer is decided early is part of the answer.
///
/// A class, not a struct, like the lifecycle that owns it: it holds the route and every
/// fetch's state, which as a value was copied (and its references retained) at every event.
/// Not `Sendable`, so it stays on its lifecycle's loop.
final class RouteExchange {
    /// Where the exchange is. An event takes its phase's data out of `state` and leaves
    /// `.modifying` there until it sets the next state, so the arrays it changes are not shared
    /// with `state` and change in place instead of being copied.
    enum State {
        /// The route's own fetches are in flight; each one's result is kept (by fetch index)
        /// until all are in. A primary fetch's id is its index, and nil marks one in flight.
        case fetchingPrimaries([Fetched?])
        /// An `expand` stage's follow-up fetches are queued or in flight.
        case expanding(FollowUps)
        /// The answer is decided: nothing is in flight and no event is expected.
        case finished
        /// An event has taken the state's data out and not put the next state back yet: any
        /// event that finds it here re-entered the exchange, and traps.
        case modifying
    }

    /// The name of each state `docs/architecture.md` draws (`modifying` is no state of the
    /// exchange's life, only of one event's work): one case per `State` case, so the diagram
    /// test reads them from here.
    enum StateName: String, CaseIterable {
        case fetchingPrimaries, expanding, finished
    }

    /// What the exchange asks the lifecycle to do next.
    enum Action: Sendable {
        /// Nothing to do until another fetch finishes.
        case wait
        /// Start these fetches and report each one's result to `fetchFinished`.
        case fetch([FetchOrder])
        /// The answer; `cancel` lists the fetches still in flight, to stop now, and how each
        /// counts against its upstream's circuit.
        case respond(ResponseRenderer.Rendered, cancel: [FetchCancel])
    }

    /// A fetch's body as the transform's input, or its absence.
    enum Fetched: Sendable {
        case tape(JSONTape)
        /// A failed optional fetch: `null` in the input.
        case absent
        /// A write's 2xx without content: answered with the upstream's status and no body.
        case noContent(status: Int)
    }

    /// One `expand` stage's follow-ups.
    struct FollowUps {
        let rule: ExpandRule
        /// Values not fetched yet, in the order they were found.
        var queue: ArraySlice<String>
        /// What each value's fetch came to.
        var outcomes: [String: RouteRun.FollowUp] = [:]
        /// The follow-ups in flight: each one's id and value.
        var inFlight: [Int: String] = [:]
    }

    let route: Route
    private let parameters: [String: String]
    private let rules: ServingRules
    /// Forwarded client headers, the route's headers, and their secrets: sent on every fetch.
    private let extras: OutgoingExtras
    let redactor: Redactor
    private(set) var state: State
    /// The transform, run once the primary fetches are in and resumed after each `expand`.
    private var run: RouteRun
    /// Fetches issued so far; also the next fetch's id.
    private(set) var fetchCount = 0
    /// The single fetch's status (the first fetch's on a `fetch:` route), for the access log.
    private(set) var upstreamStatus: Int?
    private(set) var upstreamSeconds: Double = 0
    /// What the upstreams' `Cache-Control` allows for the answer built from them.
    private(set) var cacheControl = CacheControl()
    /// The memory of the tapes the bodies were parsed into (the nodes they need; the text is
    /// the body's): the memory budget learns a route's needs from it.
    private(set) var tapeBytes = 0
    /// The request's trace, and the tracer whose ids each fetch's own span takes.
    private let trace: (context: TraceContext, tracer: Tracer)?
    /// What `conditional: true` does to the fetch and the answer, and the ETag Firebase sent.
    private(set) var conditional = ConditionalExchange.off
    private var upstreamEntityTag: String?

    /// Checks the client's body and builds the route's fetches; a problem instead when the
    /// request cannot go upstream.
    static func start(
        _ request: HTTPRequest, route: Route, parameters: [String: String],
        rules: ServingRules, trace: (context: TraceContext, tracer: Tracer)? = nil
    ) -> (RouteExchange?, Action) {
        let body: (bytes: [UInt8], contentType: String)?
        switch ClientBody.prepare(request, route: route, parameters: parameters) {
        case .failure(let problem): return (nil, .respond(.init(problem, code: problem.code), cancel: []))
        case .success(let prepared): body = prepared
        }
        var headers: [NameValue] = []
        var secrets = route.secrets
        // The client's trace headers are never passed on as they are: each fetch sends its own.
        for name in route.forwardHeaders
        where ForwardedHeaderPolicy.mayForward(name) && !UpstreamRequestBuilder.isTraceHeader(name) {
            for header in request.headers where RequestFraming.equalsIgnoringCase(header.name, name) {
                headers.append(header)
                secrets.append(header.value)
            }
        }
        headers += route.headers.map { NameValue(name: $0.name, value: $0.value(parameters)) }
        // Forwarded values are secrets too; without any, the route's prebuilt redactor serves.
        let redactor =
            secrets.count == route.secrets.count
            ? (rules.routeRedactors[route.name] ?? rules.allSecrets)
            : Redactor(secrets: ServingRules.secrets(of: route, in: rules.ruleSet) + secrets)
        // `keyed-to-array`'s `order: query`; a query Firebase would refuse is refused below, by its fetch.
        let queryOrder =
            route.firebaseQuery == .forwardAndOrder
            ? ((try? UpstreamRequestBuilder.firebaseQuery(route: route, rawQuery: request.rawQuery))?.order ?? .key)
            : .key
        let exchange = RouteExchange(
            route: route, parameters: parameters, queryOrder: queryOrder, rules: rules,
            extras: OutgoingExtras(
                headers: headers, timeoutMilliseconds: route.timeoutMilliseconds,
                secrets: secrets),
            redactor: redactor, trace: trace)
        var orders: [FetchOrder] = []
        for (index, fetch) in route.fetches.enumerated() {
            switch exchange.order(
                fetch, method: route.method, parameters: parameters, query: request.rawQuery, body: body)
            {
            case .failure(let problem):
                return (nil, .respond(.init(problem, code: problem.code), cancel: []))
            case .success(let request):
                orders.append(
                    FetchOrder(
                        id: index, request: request, counted: FetchCount(route: route.name, upstream: fetch.upstream)))
                exchange.fetchCount += 1
            }
        }
        if route.conditional, orders.count == 1 {
            exchange.conditional = ConditionalExchange.of(route: route, request: request, fetch: orders[0].request)
            exchange.conditional.prepare(&orders[0].request)
        }
        return (exchange, .fetch(orders))
    }

    private init(
        route: Route, parameters: [String: String], queryOrder: FirebaseQuery.Order, rules: ServingRules,
        extras: OutgoingExtras,
        redactor: Redactor, trace: (context: TraceContext, tracer: Tracer)?
    ) {
        self.trace = trace
        self.route = route
        self.parameters = parameters
        self.rules = rules
        self.extras = extras
        self.redactor = redactor
        state = .fetchingPrimaries(Array(repeating: nil, count: route.fetches.count))
        run = RouteRun(route: route, parameters: parameters, queryOrder: queryOrder)
    }

    /// The state's name: a `StateName`'s, or `modifying`.
    var stateName: String {
        switch state {
        case .fetchingPrimaries: StateName.fetchingPrimaries.rawValue
        case .expanding: StateName.expanding.rawValue
        case .finished: StateName.finished.rawValue
        case .modifying: "modifying"
        }
    }

    /// Fetches still in flight.
    var inFlightIDs: [Int] {
        switch state {
        case .fetchingPrimaries(let fetched): fetched.indices.filter { fetched[$0] == nil }
        case .expanding(let followUps): followUps.inFlight.keys.sorted()
        case .finished: []
        case .modifying: impossible("inFlightIDs", in: stateName)
        }
    }

    /// The rule a fetch in flight follows.
    func fetchRule(of id: Int) -> FetchRule? {
        switch state {
        case .fetchingPrimaries(let fetched):
            fetched.indices.contains(id) && fetched[id] == nil ? route.fetches[id] : nil
        case .expanding(let followUps): followUps.inFlight[id] == nil ? nil : followUps.rule.fetch
        case .finished: nil
        case .modifying: impossible("fetchRule", in: stateName)
        }
    }

    private func order(
        _ fetch: FetchRule, method: String, parameters: [String: String], query: Substring,
        body: (bytes: [UInt8], contentType: String)?
    ) -> Result<UpstreamRequest, Problem> {
        guard let upstream = rules.ruleSet.upstreams[fetch.upstream] else {
            return .failure(Problem(status: 500, code: "internal", title: "Internal error", detail: "unknown upstream"))
        }
        var extras = self.extras
        if let trace { extras.trace = trace.context.child(using: &trace.tracer.random) }
        if let body {
            extras.body = body.bytes
            extras.headers.append(NameValue(name: "Content-Type", value: body.contentType))
        }
        do {
            return .success(
                try UpstreamRequestBuilder.build(
                    fetch: fetch, method: method, route: route, upstream: upstream,
                    parameters: parameters, rawQuery: query, extras: extras))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Events

    /// A fetch finished with `result` after `seconds`: what to do next. Only a fetch in flight
    /// finishes: the server cancels the others, and a cancelled fetch never reports.
    func fetchFinished(_ id: Int, _ result: UpstreamResult, seconds: Double) -> Action {
        switch state {
        case .fetchingPrimaries(var fetched):
            guard fetched.indices.contains(id), fetched[id] == nil else {
                impossible("fetchFinished of a fetch not in flight", in: stateName)
            }
            state = .modifying
            record(result, seconds: seconds, upstream: route.fetches[id].upstream)
            if id == 0, case .response(let response) = result {
                upstreamStatus = response.status
                upstreamEntityTag = response.entityTag
            }
            if let refusal = conditional.refusal(result, context: context(for: route.fetches[id])) {
                return fail(refusal, cancel: [])
            }
            switch classify(result, fetch: route.fetches[id]) {
            case .failure(let problem):
                return fail(
                    problem,
                    cancel: fetched.indices.filter { $0 != id && fetched[$0] == nil }.map { FetchCancel(id: $0) })
            case .success(let value):
                if case .tape(let tape) = value { tapeBytes += tape.usedNodeBytes }
                fetched[id] = value
            }
            guard !fetched.contains(where: { $0 == nil }) else {
                state = .fetchingPrimaries(fetched)
                return .wait
            }
            return startRun(fetched)
        case .expanding(var followUps):
            state = .modifying
            guard let value = followUps.inFlight.removeValue(forKey: id) else {
                impossible("fetchFinished of a fetch not in flight", in: "expanding")
            }
            record(result, seconds: seconds, upstream: followUps.rule.fetch.upstream)
            switch followUpOutcome(result, value: value, rule: followUps.rule) {
            case .failure(let problem):
                return fail(problem, cancel: followUps.inFlight.keys.sorted().map { FetchCancel(id: $0) })
            case .success(let outcome):
                if case .body(let tape) = outcome { tapeBytes += tape.usedNodeBytes }
                followUps.outcomes[value] = outcome
            }
            return continueFollowUps(&followUps)
        case .finished, .modifying:
            impossible("fetchFinished", in: stateName)
        }
    }

    /// The route's `timeout` passed before the answer: a 504, and what is in flight is
    /// cancelled. The timeout counts against each upstream's circuit once, however many of the
    /// request's fetches it cut off: one slow request (an `expand` of many follow-ups) must not
    /// open a circuit that every other request would then be refused by.
    func timedOut() -> Action {
        switch state {
        case .fetchingPrimaries, .expanding: break
        case .finished, .modifying: impossible("timedOut", in: stateName)
        }
        let inFlight = inFlightIDs
        var counted: [String] = []
        let cancel = inFlight.map { id in
            let upstream = fetchRule(of: id)?.upstream ?? ""
            let first = !counted.contains(upstream)
            if first { counted.append(upstream) }
            return FetchCancel(id: id, countsAsTimeout: first)
        }
        let milliseconds = route.timeoutMilliseconds ?? 0
        let detail = "the route's timeout (\(milliseconds) ms) passed with \(inFlight.count) fetches in flight"
        let problem = Problem(
            status: 504, code: "route-timeout", title: "Route timed out", detail: detail,
            extra: [.init(key: "route", value: .string(route.name))])
        return fail(problem, cancel: cancel)
    }

    /// What every fetch's result tells, whichever phase it belongs to: how long the slowest
    /// took, and what caching the upstreams allow.
    private func record(_ result: UpstreamResult, seconds: Double, upstream: String?) {
        upstreamSeconds = max(upstreamSeconds, seconds)
        if case .response(let response) = result, let header = response.cacheControl {
            // Only a route with `cache:` reads by its upstream's host: the others read it all.
            let reading =
                route.cache == nil
                ? .all : CacheControl.reading(route.cache, upstream: upstream.flatMap { rules.ruleSet.upstreams[$0] })
            cacheControl = cacheControl.combined(with: CacheControl(header: header, reading: reading))
        }
    }

    /// Answers `problem`, stopping the fetches in `cancel`.
    private func fail(_ problem: Problem, cancel: [FetchCancel]) -> Action {
        answer(.init(problem, code: problem.code), cancel: cancel)
    }

    /// The answer is decided: nothing more is expected.
    private func answer(_ rendered: ResponseRenderer.Rendered, cancel: [FetchCancel] = []) -> Action {
        state = .finished
        var rendered = rendered
        rendered.response = conditional.finished(rendered.response, firebaseTag: upstreamEntityTag)
        return .respond(rendered, cancel: cancel)
    }

    // MARK: - The transform

    /// All primary fetches are in: run the transform.
    private func startRun(_ fetched: [Fetched?]) -> Action {
        let context = context(for: route.fetches[0])
        do {
            if route.isSingleFetch {
                switch fetched[0] {
                case .tape(let tape): return progress(try run.start(tape))
                case .noContent(let status):
                    return answer(.init(response: HTTPResponse(status: status), dropped: [], errorCode: nil))
                case .absent, nil: return progress(try run.start(JSON.null))
                }
            }
            var bodies: [(name: String, body: JSON?)] = []
            for (fetch, fetched) in zip(route.fetches, fetched) {
                if case .tape(let tape) = fetched {
                    bodies.append((fetch.name, tape.materialize(tape.root)))
                } else {
                    bodies.append((fetch.name, nil))
                }
            }
            return progress(try run.start(RouteRun.fanOutInput(bodies)))
        } catch {
            return fail(ResponseRenderer.pipelineProblem(error, context: context), cancel: [])
        }
    }

    /// The transform's next step: the answer, or an `expand` stage's follow-ups.
    private func progress(_ progress: RouteRun.Progress) -> Action {
        switch progress {
        case .done(let output):
            let status: Int
            if route.method != "GET", route.isSingleFetch, let code = upstreamStatus, (200..<300).contains(code) {
                status = code  // a write's 201 or 202 stays what the upstream said
            } else {
                status = 200
            }
            return answer(ResponseRenderer.success(output, status: status, entityTag: route.method == "GET"))
        case .followUps(let rule, let values):
            var followUps = FollowUps(rule: rule, queue: values[...])
            return continueFollowUps(&followUps)
        }
    }

    // MARK: - Follow-up fetches

    /// Starts follow-ups up to the concurrency bound; resumes the run when all are in.
    private func continueFollowUps(_ followUps: inout FollowUps) -> Action {
        var orders: [FetchOrder] = []
        while followUps.inFlight.count < followUps.rule.concurrency, let value = followUps.queue.popFirst() {
            var captures = parameters
            captures["value"] = value
            switch order(followUps.rule.fetch, method: "GET", parameters: captures, query: "", body: nil) {
            case .success(let request):
                let id = fetchCount
                fetchCount += 1
                followUps.inFlight[id] = value
                orders.append(
                    FetchOrder(
                        id: id, request: request,
                        counted: FetchCount(route: route.name, upstream: followUps.rule.fetch.upstream)))
            // A value that cannot be a path segment (".", "..") is never fetched: it is missing.
            case .failure: followUps.outcomes[value] = .notFound
            }
        }
        guard orders.isEmpty else {
            state = .expanding(followUps)
            return .fetch(orders)
        }
        guard followUps.inFlight.isEmpty, followUps.queue.isEmpty else {
            state = .expanding(followUps)
            return .wait
        }
        do {
            return progress(try run.resume(followUps.outcomes))
        } catch {
            return fail(ResponseRenderer.pipelineProblem(error, context: context(for: route.fetches[0])), cancel: [])
        }
    }
}
