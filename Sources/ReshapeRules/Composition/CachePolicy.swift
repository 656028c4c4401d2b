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
    /// `upstream-cache-control`: whether the upstreams' `Cache-Control` is read for storing;
    /// nil: the default (`honor`, but a Firebase host's `no-cache` is not read).
    package var upstreamCacheControl: UpstreamCacheControl?

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

/// `cache: { upstream-cache-control: ... }`.
package enum UpstreamCacheControl: String, Sendable, Equatable, CaseIterable {
    /// The upstreams' `no-store`, `private` and `no-cache` keep an answer out of the cache, and
    /// their `max-age` shortens its life.
    case honor
    /// The route's own `ttl` decides; the upstreams' `Cache-Control` is not read at all.
    case ignore
}

extension Upstream {
    /// A Firebase Realtime Database host, whose front end marks every answer `no-cache`
    /// (docs/firebase.md): `*.firebaseio.com` and `*.firebasedatabase.app`.
    package var isFirebaseHost: Bool {
        host.hasSuffix(".firebaseio.com") || host.hasSuffix(".firebasedatabase.app")
    }
}
