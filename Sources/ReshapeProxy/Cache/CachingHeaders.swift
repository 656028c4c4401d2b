import ReshapeRules

/// What Reshape's own answers tell clients and the caches between about keeping them (RFC 9111).
/// Every answer says it explicitly, so that no cache falls back on a heuristic freshness of its
/// own: a normalized answer is only as fresh as the route's `cache:` says.
package enum CachingHeaders {
    /// Errors and admin answers: they describe this moment (a fault, the process's state), not a
    /// representation worth keeping.
    package static let noStore = NameValue(name: "Cache-Control", value: "no-store")

    /// A route's answer: `max-age=N`, the freshness it has left, when it came from the route's
    /// cache; `no-cache` otherwise, so that a cache revalidates it (by its `ETag`) before any
    /// reuse. A route that forwards request headers answers each requester on their own
    /// (`Authorization`, say): `private` keeps shared caches from serving it to anyone else,
    /// and `Vary` names the headers the answer depends on.
    /// What the upstreams said is passed on where it is stricter: `no-store` from any of them
    /// makes the answer `no-store`, and `private` makes it `private`.
    package static func route(forwarded: [String], maxAge: Int?, upstream: CacheControl = CacheControl()) -> [NameValue]
    {
        let freshness = upstream.noStore ? "no-store" : maxAge.map { "max-age=\($0)" } ?? "no-cache"
        let vary = vary(forwarded: forwarded)
        let cacheControl = vary != nil || upstream.isPrivate ? "private, " + freshness : freshness
        var headers = [NameValue(name: "Cache-Control", value: cacheControl)]
        if let vary { headers.append(NameValue(name: "Vary", value: vary)) }
        return headers
    }

    /// The `Vary` value for a route's forwarded headers: only those really forwarded (the
    /// policy refuses hop-by-hop ones even when listed); nil when none is.
    static func vary(forwarded: [String]) -> String? {
        guard !forwarded.isEmpty else { return nil }
        // A listed trace header is never forwarded as the client sent it (each fetch sends its own).
        let names = forwarded.filter {
            ForwardedHeaderPolicy.mayForward($0) && !UpstreamRequestBuilder.isTraceHeader($0)
        }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// Adds `name` to the answer's `Vary`, merged into the one header when there is one.
    package static func addVary(_ name: String, to headers: inout [NameValue]) {
        guard let index = headers.firstIndex(where: { $0.name == "Vary" }) else {
            headers.append(NameValue(name: "Vary", value: name))
            return
        }
        headers[index].value += ", " + name
    }
}
