import ReshapeRules

/// The spans of a request whose trace is recorded (`trace.recording`): one client span per
/// fetch, handed to the server as the fetch ends (`Action.exportSpan`), and the request's
/// server span, handed over with what is recorded of it (`FinishedRequest.span`). A request
/// that is not recorded builds none of this. The server exports them (`Tracer.send`).
extension RequestLifecycle {
    /// Notes the client span of each fetch just handed out: its id is in the `traceparent`
    /// the fetch sends.
    func fetchSpansStarted(_ orders: [FetchOrder], of exchange: RouteExchange) {
        for order in orders {
            guard let spanID = order.request.trace?.spanID else { continue }
            let rule = exchange.fetchRule(of: order.id)
            fetchSpans[order.id] = FetchSpanStart(
                spanID: spanID, method: order.request.method,
                url: FetchSpanStart.shownURL(
                    order.request.url, forwardedQuery: exchange.route.forwardQuery, redactor: exchange.redactor),
                upstream: rules.ruleSet.upstreams[order.request.upstreamName],
                template: rule?.path.description)
        }
    }

    /// The client span of a fetch that ended after `seconds`, at `now` (nil: `seconds` after
    /// the request began).
    func fetchSpanEnded(_ id: Int, _ result: UpstreamResult, seconds: Double, now: Double?, retries: Int) -> Span? {
        guard settings.tracer.exports, let fetch = fetchSpans.removeValue(forKey: id) else { return nil }
        let end = now ?? started + seconds
        let tracer = settings.tracer
        return Span.client(
            trace, fetch: fetch, result: result, retries: retries,
            start: tracer.unixNanoseconds(end - seconds), end: tracer.unixNanoseconds(end))
    }

    /// The server span of the request, answered at `now` with `response`.
    func serverSpanEnded(_ response: HTTPResponse, _ record: AnswerRecord, now: Double) -> Span? {
        guard settings.tracer.exports else { return nil }
        let route =
            record.exchange?.route
            ?? record.routeName.flatMap { name in
                rules.ruleSet.routes.first { $0.name == name }
            }
        let cache = response.headers.first { $0.name == CacheStatus.headerName }?.value ?? "none"
        let redactor = record.exchange?.redactor ?? self.redactor
        let tracer = settings.tracer
        fetchSpans.removeAll()
        return Span.server(
            trace, method: request.method, route: route, path: redactor.redact(String(request.path)),
            status: response.status, dropped: record.dropped.count, cache: cache,
            start: tracer.unixNanoseconds(started), end: tracer.unixNanoseconds(now))
    }
}

extension Tracer {
    /// Whether finished spans go anywhere (an OTLP endpoint): without, none is built.
    var exports: Bool { export != nil }

    /// Exports a finished span: the server's to call, for the spans lifecycles hand it.
    package func send(_ span: Span) { export?(span) }
}
