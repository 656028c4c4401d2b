import ReshapeRules

/// A browser's preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) on a path
/// the routes serve, answered without any upstream: `204`, with the `Access-Control-*` headers
/// when the route the requested method reaches lets that origin read it, and none otherwise
/// (the browser then stops; nothing about the routes leaks).
package struct CORSPreflight: Sendable {
    /// What the preflight came to, as `reshape_cors_preflights_total` counts it.
    package enum Result: String, Sendable {
        /// Every requested method and header is allowed.
        case allowed
        /// The origin may not read the route: answered without `Access-Control-*`.
        case refusedOrigin = "refused-origin"
        /// No route of the path answers the requested method to browsers (none has it, or the
        /// one that has it says `cors: false`): answered without `Access-Control-*`.
        case refusedMethod = "refused-method"
        /// The origin and method are allowed but a requested header is not listed: the full
        /// answer, which the browser refuses to follow.
        case refusedHeaders = "refused-headers"
    }

    package var response: HTTPResponse
    /// The route the requested method reaches; nil when none does.
    package var route: String?
    package var result: Result

    /// What every preflight answer varies on: a cache must not hand one origin's (or method's,
    /// or header list's) answer to another.
    static let vary = NameValue(
        name: "Vary", value: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")

    /// The headers a route lets a page send besides the CORS-safelisted ones: what it reads of
    /// a client, the headers its rate limits are keyed by (`header.NAME`) included.
    package static func allowedHeaders(of route: Route, limits: [String: LimitPolicy] = [:]) -> [String] {
        var names = route.forwardHeaders.filter { ForwardedHeaderPolicy.mayForward($0) }
        for name in route.limit {
            if case .header(let header)? = limits[name]?.key { names.append(header) }
        }
        if ["POST", "PUT", "PATCH"].contains(route.method) { names.append("Content-Type") }
        if route.readsAuthorization { names.append("Authorization") }
        names += ["If-None-Match", "If-Match", "Prefer", "Last-Event-ID", "traceparent", "tracestate"]
        var seen: Set<String> = []
        return names.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The preflight's answer. `methods` are the path's routes' methods (`HEAD` after `GET`),
    /// each with the policy of the route it reaches; `target` is the route the requested method
    /// reaches with its policy, nil when none does.
    static func answer(
        origin: String, requestedHeaders: String?, methods: [(method: String, policy: CORSPolicy?)],
        target: (route: Route, policy: CORSPolicy?)?, limits: [String: LimitPolicy] = [:]
    ) -> CORSPreflight {
        let refused = HTTPResponse(status: 204, headers: [vary])
        guard let target, let policy = target.policy else {
            return CORSPreflight(response: refused, route: target?.route.name, result: .refusedMethod)
        }
        guard policy.allows(origin) else {
            return CORSPreflight(response: refused, route: target.route.name, result: .refusedOrigin)
        }
        let allowedMethods = methods.filter { $0.policy?.allows(origin) == true }.map(\.method)
        let allowedHeaders = allowedHeaders(of: target.route, limits: limits)
        let lowerAllowed = Set(allowedHeaders.map { $0.lowercased() })
        let requested = (requestedHeaders ?? "").split(separator: ",").map {
            $0.filter { $0 != " " && $0 != "\t" }.lowercased()
        }.filter { !$0.isEmpty }
        let wildcard = policy.origins == .any && !policy.credentials
        var headers = [
            NameValue(name: "Access-Control-Allow-Origin", value: wildcard ? "*" : origin)
        ]
        if policy.credentials && !wildcard {
            headers.append(NameValue(name: "Access-Control-Allow-Credentials", value: "true"))
        }
        headers += [
            NameValue(name: "Access-Control-Allow-Methods", value: allowedMethods.joined(separator: ", ")),
            NameValue(name: "Access-Control-Allow-Headers", value: allowedHeaders.joined(separator: ", ")),
            NameValue(name: "Access-Control-Max-Age", value: String(policy.maxAgeSeconds)),
            vary,
        ]
        let result: Result = requested.allSatisfy(lowerAllowed.contains) ? .allowed : .refusedHeaders
        return CORSPreflight(
            response: HTTPResponse(status: 204, headers: headers), route: target.route.name, result: result)
    }
}
