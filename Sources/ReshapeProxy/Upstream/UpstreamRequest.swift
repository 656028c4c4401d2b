import ReshapeRules

/// Everything the upstream client needs for one fetch; built by `UpstreamRequestBuilder`.
public struct UpstreamRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [NameValue]
    /// Sent with `Content-Length` (its `Content-Type` is in `headers`); nil: no body.
    public var body: [UInt8]?
    public var timeoutMilliseconds: Int
    public var connectTimeoutMilliseconds: Int
    public var maxBodyBytes: Int
    public var upstreamName: String
    /// The upstream's and the route's secrets and forwarded client credentials: anything
    /// logged about this request is redacted with them.
    public var secrets: [String] = []
    /// The upstream's `retry:`, `circuit:` and idle pool, as the rules said when the fetch was built.
    public var retry = RetryRule.standard
    public var circuit: CircuitRule?
    public var idlePool = IdlePoolRule.standard
    /// Whether sending it again is harmless: GET and HEAD, and PUT and DELETE on a route that
    /// says `idempotent: true`; never POST or PATCH.
    public var retryable = false
}

/// What a route adds to each upstream request beyond its URL: headers and the body.
public struct OutgoingExtras: Sendable {
    public var headers: [NameValue] = []
    public var body: [UInt8]?
    /// Bounds each fetch below the upstream's own timeout (the route's `timeout`).
    public var timeoutMilliseconds: Int?
    public var secrets: [String] = []

    public init(
        headers: [NameValue] = [], body: [UInt8]? = nil, timeoutMilliseconds: Int? = nil, secrets: [String] = []
    ) {
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.secrets = secrets
    }
}

/// Builds the upstream URL from a fetch rule. Path captures are percent-encoded byte by byte,
/// so nothing a client sends (`..`, `%2F`, `@`, `#`, `?`, CR/LF, NUL) can change the host or
/// leave the rule's path; only query parameters the rule names are passed on.
public enum UpstreamRequestBuilder {
    /// The single-fetch request of a route (its first fetch), as a GET route sends it.
    public static func build(
        route: Route, upstream: Upstream, parameters: [String: String],
        rawQuery: Substring
    ) throws(Problem) -> UpstreamRequest {
        try build(
            fetch: route.fetches[0], method: route.method, route: route, upstream: upstream,
            parameters: parameters, rawQuery: rawQuery, extras: OutgoingExtras())
    }

    public static func build(
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
            throw Problem(
                status: 400, code: "bad-parameter", title: "Bad path parameter",
                detail: "'\(error.name)' must not be empty, '.' or '..'",
                extra: [.init(key: "route", value: .string(route.name))])
        }
        var query: [String] = upstream.query.map {
            PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value)
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
        if let bound = extras.timeoutMilliseconds { timeout = min(timeout, bound) }
        var request = UpstreamRequest(
            method: method == "HEAD" ? "GET" : method, url: url,
            headers: headers(upstream: upstream.headers, route: route, extras: extras.headers),
            body: extras.body,
            timeoutMilliseconds: timeout,
            connectTimeoutMilliseconds: min(upstream.connectTimeoutMilliseconds, timeout),
            maxBodyBytes: upstream.maxBodyBytes, upstreamName: upstream.name,
            secrets: extras.secrets.isEmpty ? upstream.secrets : upstream.secrets + extras.secrets)
        request.retry = upstream.retry
        request.circuit = upstream.circuit
        request.idlePool = upstream.idlePool
        request.retryable =
            switch method {
            case "GET", "HEAD": true
            case "PUT", "DELETE": route.idempotent
            default: false
            }
        return request
    }

    private static let acceptJSON = NameValue(name: "Accept", value: "application/json")

    /// `Accept: application/json` unless a header sets its own, the upstream's headers, then the
    /// route's. A header the route sets or forwards replaces the upstream's of that name, even
    /// when the client did not send it: a route that forwards Authorization never falls back to
    /// the operator's credentials. Built in one array, with no set of names: this runs per fetch.
    private static func headers(upstream: [NameValue], route: Route, extras: [NameValue]) -> [NameValue] {
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
        return headers
    }
}
