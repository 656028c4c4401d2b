/// A named rate limit under the top-level `limits:` key: GCRA over `rate` per `interval`, with
/// `burst` requests at once, per value of `key`.
package struct LimitPolicy: Sendable, Equatable {
    /// What a request is counted under.
    package enum Key: Sendable, Equatable {
        /// The TCP peer, or with trusted proxies the first untrusted `X-Forwarded-For` from the right.
        case clientAddress
        case header(String)
        case query(String)
        /// A verified token's claim (the route needs `auth`).
        case auth(String)
        /// A path capture of the route's request template.
        case capture(String)
    }

    package var name: String
    /// Requests allowed per `intervalSeconds` (`10/s`: 10 and 1).
    package var count: Int
    package var intervalSeconds: Int
    /// Requests allowed at once; defaults to `count`.
    package var burst: Int
    package var key: Key
    package var location: SourceLocation

    package init(name: String, count: Int, intervalSeconds: Int, burst: Int, key: Key, location: SourceLocation) {
        self.name = name
        self.count = count
        self.intervalSeconds = intervalSeconds
        self.burst = burst
        self.key = key
        self.location = location
    }
}

/// An upstream's `queue:`: fetches beyond its `max-in-flight` wait here, at most `size` of
/// them for at most `timeoutMilliseconds` each.
package struct UpstreamQueueRule: Sendable, Equatable {
    package var size: Int
    package var timeoutMilliseconds: Int

    package init(size: Int, timeoutMilliseconds: Int) {
        self.size = size
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}
