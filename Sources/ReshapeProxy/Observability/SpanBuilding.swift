import ReshapeRules

/// What a fetch's client span says about the fetch itself, noted as it is handed out (only
/// for a request whose spans are recorded). The URL is redacted already.
struct FetchSpanStart: Sendable {
    let spanID: String
    let method: String
    let url: String
    let upstream: Upstream?
    /// The upstream path as the rule writes it (`/users/{id}`), for the span's name.
    let template: String?
}

extension FetchSpanStart {
    /// A fetch's URL as its span shows it: secrets redacted, and the values of query
    /// parameters passed on from the client replaced, since clients put tokens there.
    static func shownURL(_ url: String, forwardedQuery: [String], redactor: Redactor) -> String {
        let redacted = redactor.redact(url)
        guard !forwardedQuery.isEmpty, let question = redacted.firstIndex(of: "?") else { return redacted }
        let names = Set(forwardedQuery.map(PercentEncoding.encode))
        let query = redacted[redacted.index(after: question)...]
        let pairs = query.split(separator: "&").map { (pair: Substring) -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[pair.startIndex..<equals])
            return names.contains(name) ? name + "=[REDACTED]" : String(pair)
        }
        return String(redacted[redacted.startIndex...question]) + pairs.joined(separator: "&")
    }
}

/// The spans of one request, after the OpenTelemetry HTTP semantic conventions. Nothing the
/// client sent past the path (its query, its headers) is an attribute: either may hold tokens.
extension Span {
    /// The request's server span, named `METHOD route-template` (the method alone without a
    /// route, so unmatched paths do not make a name each).
    static func server(
        _ trace: RequestTrace, method: String, route: Route?, path: String, status: Int, dropped: Int,
        cache: String, start: UInt64, end: UInt64
    ) -> Span {
        var attributes: [(key: String, value: Value)] = [
            ("http.request.method", .string(method)),
            ("url.path", .string(path)),
            ("http.response.status_code", .int(status)),
        ]
        if let route {
            attributes.append(("http.route", .string(route.path.description)))
            attributes.append(("reshape.route", .string(route.name)))
        }
        attributes.append(("reshape.dropped", .int(dropped)))
        attributes.append(("reshape.cache", .string(cache)))
        return Span(
            traceID: trace.context.traceID, spanID: trace.context.spanID, parentSpanID: trace.parentSpanID,
            name: route.map { method + " " + $0.path.description } ?? method, kind: .server,
            startUnixNanoseconds: start, endUnixNanoseconds: max(start, end), attributes: attributes,
            failed: status >= 500)
    }

    /// One fetch's client span, a child of the request's: its id is the parent id the fetch's
    /// `traceparent` carried. A failure, or a status of 400 or more, is its `error.type`.
    static func client(
        _ trace: RequestTrace, fetch: FetchSpanStart, result: UpstreamResult, retries: Int, start: UInt64,
        end: UInt64
    ) -> Span {
        var attributes: [(key: String, value: Value)] = [("http.request.method", .string(fetch.method))]
        if let upstream = fetch.upstream {
            attributes.append(("server.address", .string(upstream.host)))
            attributes.append(("server.port", .int(upstream.port ?? (upstream.scheme == "https" ? 443 : 80))))
            attributes.append(("reshape.upstream", .string(upstream.name)))
        }
        attributes.append(("url.full", .string(fetch.url)))
        if let template = fetch.template { attributes.append(("url.template", .string(template))) }
        var failed = false
        switch result {
        case .response(let response):
            attributes.append(("http.response.status_code", .int(response.status)))
            if response.status >= 400 {
                attributes.append(("error.type", .string(String(response.status))))
                failed = true
            }
        case .failure(let kind, _):
            attributes.append(("error.type", .string(kind.rawValue)))
            failed = true
        }
        attributes.append(("reshape.retry_count", .int(retries)))
        return Span(
            traceID: trace.context.traceID, spanID: fetch.spanID, parentSpanID: trace.context.spanID,
            name: fetch.template.map { fetch.method + " " + $0 } ?? fetch.method, kind: .client,
            startUnixNanoseconds: start, endUnixNanoseconds: max(start, end), attributes: attributes,
            failed: failed)
    }
}
