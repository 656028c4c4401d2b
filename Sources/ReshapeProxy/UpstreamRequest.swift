import ReshapeRules

/// Everything the upstream client needs for one fetch; built by `UpstreamRequestBuilder`.
public struct UpstreamRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [NameValue]
    public var timeoutMilliseconds: Int
    public var connectTimeoutMilliseconds: Int
    public var maxBodyBytes: Int
    public var upstreamName: String
    /// The upstream's `${VAR}` values: anything logged about this request is redacted with them.
    public var secrets: [String] = []
}

/// Builds the upstream URL from a route. Path captures are percent-encoded byte by byte, so
/// nothing a client sends (`..`, `%2F`, `@`, `#`, `?`, CR/LF, NUL) can change the host or
/// leave the rule's path; only query parameters the rule names are passed on.
public enum UpstreamRequestBuilder {
    public static func build(route: Route, upstream: Upstream, parameters: [String: String],
                             rawQuery: Substring) throws(Problem) -> UpstreamRequest {
        var url = upstream.scheme + "://"
        url += upstream.host.contains(":") ? "[\(upstream.host)]" : upstream.host
        if let port = upstream.port { url += ":\(port)" }
        url += upstream.basePath
        do {
            url += try route.fetches[0].renderedPath(parameters)
        } catch {
            throw Problem(status: 400, code: "bad-parameter", title: "Bad path parameter",
                          detail: "'\(error.name)' must not be empty, '.' or '..'",
                          extra: [.init(key: "route", value: .string(route.name))])
        }
        var query: [String] = upstream.query.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
        if !route.forwardQuery.isEmpty, !rawQuery.isEmpty {
            for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: "=")
                let rawName = equals.map { pair[..<$0] } ?? pair
                let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
                guard let name = PercentEncoding.decode(rawName, plusIsSpace: true),
                      let value = PercentEncoding.decode(rawValue, plusIsSpace: true) else {
                    throw Problem.badRequest("the query string has an invalid percent-encoding")
                }
                if route.forwardQuery.contains(name) {
                    query.append(PercentEncoding.encode(name) + "=" + PercentEncoding.encode(value))
                }
            }
        }
        if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        return UpstreamRequest(method: route.method == "HEAD" ? "GET" : route.method, url: url,
                               headers: acceptHeader(unless: upstream.headers) + upstream.headers,
                               timeoutMilliseconds: upstream.timeoutMilliseconds,
                               connectTimeoutMilliseconds: upstream.connectTimeoutMilliseconds,
                               maxBodyBytes: upstream.maxBodyBytes, upstreamName: upstream.name, secrets: upstream.secrets)
    }

    /// `Accept: application/json`, unless the rule sets its own Accept header.
    private static func acceptHeader(unless headers: [NameValue]) -> [NameValue] {
        headers.contains { RequestFraming.equalsIgnoringCase($0.name, "accept") }
            ? [] : [NameValue(name: "Accept", value: "application/json")]
    }
}
