import ReshapeAuth
import ReshapeStateMachines

/// One verifier's key set on one worker, as pure logic: when it is fetched (at the first request,
/// when its `max-age` runs out, and again for a token naming an unknown `kid` at most every
/// `unknownKeyInterval`), which keys requests are checked with meanwhile, and what a failed
/// fetch leaves. The server performs the fetches and keeps the requests waiting; times are
/// monotonic seconds.
package struct VerifierKeys {
    enum State {
        /// Never fetched, or the last fetch failed with no keys in hand; `retryAt`: a request
        /// before then is refused at once rather than starting a fetch per request.
        case empty(retryAt: Double)
        /// A fetch is running; `held`: the keys requests are checked with meanwhile.
        case fetching(held: KeySet?)
        /// Keys in hand, fetched again in the background from `refreshAt`.
        case ready(KeySet, refreshAt: Double)
    }

    /// What a request gets.
    package enum Lookup {
        /// These keys, or none to be had (nil: 503); `startFetch`: they are out of date, start
        /// fetching them again (the request does not wait for it).
        case now(KeySet?, startFetch: Bool = false)
        /// Wait for the fetch in flight; `startFetch`: start it first.
        case wait(startFetch: Bool)
    }

    /// What a fetch that ended gives.
    package struct Fetched {
        /// What the requests waiting for it are checked with (nil: none to be had).
        package var keys: KeySet?
    }

    static let minimumLifetimeSeconds = 60.0
    static let maximumLifetimeSeconds = 86_400.0
    /// A key set served without `max-age`.
    static let defaultLifetimeSeconds = 3_600.0
    /// How often a token naming an unknown `kid` may make the set be fetched again.
    package static let unknownKeyIntervalSeconds = 30.0
    /// After a failed first fetch, requests are refused at once for this long.
    static let failedRetrySeconds = 5.0

    private(set) var state = State.empty(retryAt: -Double.infinity)
    /// When a token's unknown `kid` last made the set be fetched again.
    private var lastRefetch = -Double.infinity
    package init() {}

    package var stateName: String {
        switch state {
        case .empty: "empty"
        case .fetching: "fetching"
        case .ready: "ready"
        }
    }

    /// The keys for a request at `now`; `refetch`: its token names a key the set does not have.
    package mutating func lookUp(refetch: Bool, now: Double) -> Lookup {
        switch state {
        case .empty(let retryAt):
            guard now >= retryAt else { return .now(nil) }
            return startFetch(held: nil)
        case .fetching(let held):
            // A refetch waits for the fetch running: it is newer than the keys it was refused by.
            return refetch || held == nil ? .wait(startFetch: false) : .now(held)
        case .ready(let keys, let refreshAt):
            if refetch {
                // Tokens naming keys nobody published must not make every request a fetch.
                guard now - lastRefetch >= Self.unknownKeyIntervalSeconds else { return .now(keys) }
                lastRefetch = now
                return startFetch(held: keys)
            }
            guard now >= refreshAt else { return .now(keys) }
            // Out of date: fetched again, the request checked with what is in hand meanwhile.
            state = .fetching(held: keys)
            return .now(keys, startFetch: true)
        }
    }

    private mutating func startFetch(held: KeySet?) -> Lookup {
        state = .fetching(held: held)
        return .wait(startFetch: true)
    }

    /// The fetch ended: with a key set and its `max-age`, or failed (nil). A failed fetch keeps
    /// the keys in hand, tried again after the shortest lifetime.
    package mutating func fetchEnded(_ keys: KeySet?, maxAgeSeconds: Int?, now: Double) -> Fetched {
        guard case .fetching(let held) = state else { impossible("fetchEnded", in: stateName) }
        if let keys {
            let lifetime = min(
                max(maxAgeSeconds.map(Double.init) ?? Self.defaultLifetimeSeconds, Self.minimumLifetimeSeconds),
                Self.maximumLifetimeSeconds)
            state = .ready(keys, refreshAt: now + lifetime)
            return Fetched(keys: keys)
        }
        if let held {
            state = .ready(held, refreshAt: now + Self.minimumLifetimeSeconds)
            return Fetched(keys: held)
        }
        state = .empty(retryAt: now + Self.failedRetrySeconds)
        return Fetched(keys: nil)
    }
}
