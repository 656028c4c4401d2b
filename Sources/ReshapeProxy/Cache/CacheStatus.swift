import ReshapeRules

/// How the answer to a request of a route with `cache:` was found, as its `Reshape-Cache`
/// header tells the client.
package enum CacheStatus: String, Sendable {
    /// A fresh copy from the cache.
    case hit
    /// Fetched for this request (and kept, when it may be).
    case miss
    /// A copy past its `ttl`: within `stale-while-revalidate`, or within `stale-if-error`
    /// instead of an upstream failure.
    case stale
    /// Fetched by another request for the same key, which this one waited for.
    case coalesced

    /// The response header that carries the status.
    static let headerName = "Reshape-Cache"

    /// The status as a response header.
    var header: NameValue { NameValue(name: Self.headerName, value: rawValue) }
}
