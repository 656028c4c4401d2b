import ReshapeProblem
import ReshapeRules

/// Everything the upstream client needs for one fetch; built by `UpstreamRequestBuilder`.
package struct UpstreamRequest: Sendable {
    package var method: String
    package var url: String
    package var headers: [NameValue]
    /// Sent with `Content-Length` (its `Content-Type` is in `headers`); nil: no body.
    package var body: [UInt8]?
    package var timeoutMilliseconds: Int
    package var connectTimeoutMilliseconds: Int
    package var maxBodyBytes: Int
    package var upstreamName: String
    /// The upstream's and the route's secrets and forwarded client credentials: anything
    /// logged about this request is redacted with them.
    package var secrets: [String] = []
    /// The fetch's own span in the request's trace, sent as `traceHeaders`. One per fetch, kept
    /// by a retry of it.
    package var trace: TraceContext?

    /// `traceparent` (and `tracestate`) for `trace`, kept apart from `headers`: they differ on
    /// every fetch, and the rest of an upstream's header list is shared between fetches.
    package var traceHeaders: [NameValue] {
        guard let trace else { return [] }
        var headers = [NameValue(name: "traceparent", value: trace.traceparent)]
        if let state = trace.traceState { headers.append(NameValue(name: "tracestate", value: state)) }
        return headers
    }

    /// The upstream's `retry:`, `circuit:` and idle pool, as the rules said when the fetch was built.
    package var retry = RetryRule.standard
    package var circuit: CircuitRule?
    package var idlePool = IdlePoolRule.standard
    /// Whether sending it again is harmless: GET and HEAD, and PUT and DELETE on a route that
    /// says `idempotent: true`; never POST or PATCH.
    package var retryable = false
    /// Which redirects are followed; nil: none (the upstream has no `redirects:`).
    package var redirects: RedirectPolicy?
    /// The upstream's `max-in-flight` and `queue`; nil: unbounded, and no lock is taken.
    package var admission: FetchAdmissionRule?
    /// The route that fetches, whose recent body sizes estimate what it will need.
    package var route = ""

    package init(
        method: String, url: String, headers: [NameValue], body: [UInt8]?, timeoutMilliseconds: Int,
        connectTimeoutMilliseconds: Int, maxBodyBytes: Int, upstreamName: String, secrets: [String] = [],
        trace: TraceContext? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.maxBodyBytes = maxBodyBytes
        self.upstreamName = upstreamName
        self.secrets = secrets
        self.trace = trace
    }
}

/// What a route adds to each upstream request beyond its URL: headers and the body.
package struct OutgoingExtras: Sendable {
    package var headers: [NameValue] = []
    package var body: [UInt8]?
    /// Bounds each fetch below the upstream's own timeout (the route's `timeout`).
    package var timeoutMilliseconds: Int?
    package var secrets: [String] = []
    /// The fetch's trace context, sent as `traceparent` in place of any header of that name.
    package var trace: TraceContext?

    package init(
        headers: [NameValue] = [], body: [UInt8]? = nil, timeoutMilliseconds: Int? = nil, secrets: [String] = [],
        trace: TraceContext? = nil
    ) {
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.secrets = secrets
        self.trace = trace
    }
}

/// Builds the upstream URL from a fetch rule. Path captures are percent-encoded byte by byte,
/// so nothing a client sends (`..`, `%2F`, `@`, `#`, `?`, CR/LF, NUL) can change the host or
/// leave the rule's path; only query parameters the rule names are passed on: those of
/// `forward-query`, and on a route with `firebase-query: true` Firebase's, once checked.
package enum UpstreamRequestBuilder {
    /// The single-fetch request of a route (its first fetch), as a GET route sends it.
    package static func build(
        route: Route, upstream: Upstream, parameters: [String: String],
        rawQuery: Substring
    ) throws(Problem) -> UpstreamRequest {
        try build(
            fetch: route.fetches[0], method: route.method, route: route, upstream: upstream,
            parameters: parameters, rawQuery: rawQuery, extras: OutgoingExtras())
    }

    package static func build(
        fetch: FetchRule, method: String, route: Route, upstream: Upstream, parameters: [String: String],
        rawQuery: Substring, extras: OutgoingExtras
    ) throws(Problem) -> UpstreamRequest {
        var url = upstream.scheme + "://"
        url += upstream.host.contains(":") ? "[\(upstream.host)]" : upstream.host
        if let port = upstream.port { url += ":\(port)" }
        url += upstream.basePath
        do {
            url += try fetch.renderedPath(parameters)
        } catch {
            throw badParameter(error.name, "must not be empty, '.' or '..'", route: route)
        }
        // The route's `query:` replaces the upstream's parameter of the same name, as its headers do.
        var query: [String] = []
        for pair in upstream.query where !route.upstreamQuery.contains(where: { $0.name == pair.name }) {
            query.append(PercentEncoding.encode(pair.name) + "=" + PercentEncoding.encode(pair.value))
        }
        // The route's `query:`, its templates filled with the captures and verified claims.
        for rule in route.upstreamQuery {
            query.append(PercentEncoding.encode(rule.name) + "=" + PercentEncoding.encode(rule.queryValue(parameters)))
        }
        if let firebase = try firebaseQuery(route: route, rawQuery: rawQuery) {
            for parameter in firebase.parameters {
                query.append(parameter.name + "=" + PercentEncoding.encode(parameter.value))
            }
        }
        if !route.forwardQuery.isEmpty, !rawQuery.isEmpty {
            for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: "=")
                let rawName = equals.map { pair[..<$0] } ?? pair
                let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
                guard let name = PercentEncoding.decode(rawName, plusIsSpace: true),
                    let value = PercentEncoding.decode(rawValue, plusIsSpace: true)
                else {
                    throw Problem.badRequest("the query string has an invalid percent-encoding")
                }
                if route.forwardQuery.contains(name) {
                    query.append(PercentEncoding.encode(name) + "=" + PercentEncoding.encode(value))
                }
            }
        }
        if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        var timeout = upstream.timeoutMilliseconds
        // The route's timer answers 504 `route-timeout` and cancels the fetch; curl's own
        // timeout, a little later, is only the backstop, or the two would race.
        if let bound = extras.timeoutMilliseconds {
            timeout = min(timeout, bound + Self.routeTimeoutMarginMilliseconds)
        }
        var request = UpstreamRequest(
            method: method == "HEAD" ? "GET" : method, url: url,
            headers: headers(upstream: upstream.headers, route: route, extras: extras.headers, trace: extras.trace),
            body: extras.body,
            timeoutMilliseconds: timeout,
            connectTimeoutMilliseconds: min(upstream.connectTimeoutMilliseconds, timeout),
            maxBodyBytes: upstream.maxBodyBytes, upstreamName: upstream.name,
            secrets: extras.secrets.isEmpty ? upstream.secrets : upstream.secrets + extras.secrets,
            trace: extras.trace)
        request.retry = upstream.retry
        request.circuit = upstream.circuit
        request.idlePool = upstream.idlePool
        request.redirects = upstream.redirects.map { RedirectPolicy(rule: $0, upstream: upstream) }
        request.route = route.name
        request.admission = upstream.maxInFlight.map { FetchAdmissionRule(maxInFlight: $0, queue: upstream.queue) }
        request.retryable =
            switch method {
            case "GET", "HEAD": true
            case "PUT", "DELETE": route.idempotent
            default: false
            }
        return request
    }

    /// The request's Firebase query on a route with `firebase-query: true`, checked as
    /// Firebase checks it (400 `bad-parameter` naming the parameter); nil on other routes,
    /// which read nothing of it. A route that orders records by the query refuses
    /// `orderBy="$priority"`: answers carry no priorities to order by.
    package static func firebaseQuery(route: Route, rawQuery: Substring) throws(Problem) -> FirebaseQuery? {
        if route.firebaseQuery == .off { return nil }
        let query: FirebaseQuery
        do {
            query = try FirebaseQuery.parse(rawQuery)
        } catch {
            switch error {
            case .encoding: throw Problem.badRequest("the query string has an invalid percent-encoding")
            case .parameter(let name, let reason): throw badParameter(name, reason, route: route)
            }
        }
        if route.firebaseQuery == .forwardAndOrder, query.orderBy == .priority {
            throw badParameter(
                "orderBy",
                "cannot be \"$priority\" on this route: it orders records by the query, and answers carry no priorities",
                route: route)
        }
        return query
    }

    /// 400 `bad-parameter`: a path capture or a query parameter the request may not have.
    private static func badParameter(_ name: String, _ reason: String, route: Route) -> Problem {
        Problem(
            status: 400, code: "bad-parameter", title: "Bad parameter", detail: "'\(name)' \(reason)",
            extra: [.init(key: "route", value: .string(route.name)), .init(key: "parameter", value: .string(name))])
    }

    private static let acceptJSON = NameValue(name: "Accept", value: "application/json")

    /// How much longer than a route's `timeout` a fetch may take before curl cuts it off.
    package static let routeTimeoutMarginMilliseconds = 1000

    /// `Accept: application/json` unless a header sets its own, the upstream's headers, then the
    /// route's. A header the route sets or forwards replaces the upstream's of that name, even
    /// when the client did not send it: a route that forwards Authorization never falls back to
    /// the operator's credentials. Built in one array, with no set of names: this runs per fetch.
    /// With a trace, its `traceparent` and `tracestate` are the only ones sent: a header of
    /// either name from the upstream, the route or the client would name another span.
    private static func headers(
        upstream: [NameValue], route: Route, extras: [NameValue], trace: TraceContext?
    ) -> [NameValue] {
        func replaced(_ name: String) -> Bool {
            extras.contains { RequestFraming.equalsIgnoringCase($0.name, name) }
                || route.forwardHeaders.contains { RequestFraming.equalsIgnoringCase($0, name) }
        }
        var headers: [NameValue] = []
        headers.reserveCapacity(1 + upstream.count + extras.count)
        headers.append(acceptJSON)
        for header in upstream where !replaced(header.name) { headers.append(header) }
        headers += extras
        if headers.dropFirst().contains(where: { RequestFraming.equalsIgnoringCase($0.name, "accept") }) {
            headers.removeFirst()
        }
        // The fetch's own trace headers go apart (`UpstreamRequest.traceHeaders`); any other
        // would be a second one.
        if trace != nil { headers.removeAll { isTraceHeader($0.name) } }
        return headers
    }

    static func isTraceHeader(_ name: String) -> Bool {
        RequestFraming.equalsIgnoringCase(name, "traceparent") || RequestFraming.equalsIgnoringCase(name, "tracestate")
    }
}
