/// `cache:` on a GET route: how long its normalized answer is reused.
public struct CachePolicy: Sendable, Equatable {
    /// Fresh for this long after it was stored.
    public var ttlMilliseconds: Int
    /// After `ttl`, a stale copy is answered at once while one background refresh runs.
    public var staleWhileRevalidateMilliseconds: Int
    /// After `ttl`, when a refresh fails, the last good copy is answered instead of the error.
    public var staleIfErrorMilliseconds: Int
    /// Client query parameters that are part of the key besides the forwarded ones.
    public var varyQuery: [String]

    public init(
        ttlMilliseconds: Int, staleWhileRevalidateMilliseconds: Int = 0, staleIfErrorMilliseconds: Int = 0,
        varyQuery: [String] = []
    ) {
        self.ttlMilliseconds = ttlMilliseconds
        self.staleWhileRevalidateMilliseconds = staleWhileRevalidateMilliseconds
        self.staleIfErrorMilliseconds = staleIfErrorMilliseconds
        self.varyQuery = varyQuery
    }
}
