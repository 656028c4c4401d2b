import ReshapeRules

/// What the Fetch standard's CORS protocol adds to one answer of a route, decided once per
/// request (from the route's policy and the request's `Origin`) and added as the answer is
/// delivered: a cached answer is shared by every origin, so none of this is ever stored.
package enum CORSAnswer: Sendable, Equatable {
    /// The route is not for browsers (no `cors:`, or `cors: false`): nothing is added.
    case none
    /// The route answers listed origins, and this request is from none of them (or from no
    /// page at all): only `Vary: Origin`, since an allowed origin's answer differs.
    case varies
    /// A page may read it. `origin`: the request's, or `*` (every origin, without credentials;
    /// then the answer is the same for all and varies on nothing).
    case allowed(origin: String, credentials: Bool, exposeHeaders: [String])

    /// Not the request's own origin echoed: every request that gets this answer gets the same
    /// headers (a cached answer may keep them rendered, `KeptHead`).
    var isSameForEveryRequest: Bool {
        switch self {
        case .none, .varies: true
        case .allowed(let origin, _, _): origin == "*"
        }
    }

    /// The answer for a request with `origin` (nil: none sent) to a route with `policy`.
    package static func decide(_ policy: CORSPolicy?, origin: String?) -> CORSAnswer {
        guard let policy else { return .none }
        switch policy.origins {
        case .any:
            return .allowed(origin: "*", credentials: false, exposeHeaders: policy.exposeHeaders)
        case .listed:
            guard let origin, policy.allows(origin) else { return .varies }
            return .allowed(origin: origin, credentials: policy.credentials, exposeHeaders: policy.exposeHeaders)
        }
    }

    /// The CORS response headers a browser may read without being told (the Fetch standard's
    /// CORS-safelisted response-header names), lower-cased.
    static let safelisted: Set<String> = [
        "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma",
    ]

    /// `response` with this answer's headers: `Vary: Origin` merged into its `Vary` when the
    /// allowed origin is the request's, then `Access-Control-Allow-Origin`, `-Allow-Credentials`,
    /// and `-Expose-Headers` naming every header the answer carries that a page could not read
    /// otherwise (but `Vary`), plus the policy's `expose-headers`.
    package func apply(to response: HTTPResponse) -> HTTPResponse {
        var response = response
        switch self {
        case .none:
            return response
        case .varies:
            Self.addVaryOrigin(to: &response.headers)
            return response
        case .allowed(let origin, let credentials, let extra):
            if origin != "*" { Self.addVaryOrigin(to: &response.headers) }
            let exposed = Self.exposed(response.headers.map(\.name) + extra)
            response.headers.append(NameValue(name: "Access-Control-Allow-Origin", value: origin))
            if credentials {
                response.headers.append(NameValue(name: "Access-Control-Allow-Credentials", value: "true"))
            }
            if !exposed.isEmpty {
                response.headers.append(
                    NameValue(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", ")))
            }
            return response
        }
    }

    /// The headers a live stream's head adds: `own` (its rate limits', which a page may read
    /// as on any answer) and these (it has no other non-safelisted header).
    package func streamHeaders(adding own: [NameValue] = []) -> [NameValue] {
        apply(to: HTTPResponse(status: 200, headers: own)).headers
    }

    /// `names` without the safelisted ones, the CORS headers themselves, `Vary` (it tells caches,
    /// not the page, and CORS itself adds to it) and repeats (any case).
    static func exposed(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { name in
            let lower = name.lowercased()
            return !safelisted.contains(lower) && !lower.hasPrefix("access-control-") && lower != "vary"
                && seen.insert(lower).inserted
        }
    }

    /// Adds `Origin` to the one `Vary` (unless it names it, or `*`, already).
    static func addVaryOrigin(to headers: inout [NameValue]) {
        if let vary = headers.first(where: { $0.name == "Vary" }) {
            let names = vary.value.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
            if names.contains("origin") || names.contains("*") { return }
        }
        CachingHeaders.addVary("Origin", to: &headers)
    }
}

extension Substring {
    /// Without the spaces and tabs around it (list elements in a header value).
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
