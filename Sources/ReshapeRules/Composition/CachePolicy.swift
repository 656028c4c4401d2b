/// `cache:` on a GET route: how long its normalized answer is reused.
package struct CachePolicy: Sendable, Equatable {
    /// Fresh for this long after it was stored.
    package var ttlMilliseconds: Int
    /// After `ttl`, a stale copy is answered at once while one background refresh runs.
    package var staleWhileRevalidateMilliseconds: Int
    /// After `ttl`, when a refresh fails, the last good copy is answered instead of the error.
    package var staleIfErrorMilliseconds: Int
    /// Client query parameters that are part of the key besides the forwarded ones.
    package var varyQuery: [String]

    package init(
        ttlMilliseconds: Int, staleWhileRevalidateMilliseconds: Int = 0, staleIfErrorMilliseconds: Int = 0,
        varyQuery: [String] = []
    ) {
        self.ttlMilliseconds = ttlMilliseconds
        self.staleWhileRevalidateMilliseconds = staleWhileRevalidateMilliseconds
        self.staleIfErrorMilliseconds = staleIfErrorMilliseconds
        self.varyQuery = varyQuery
    }
}
