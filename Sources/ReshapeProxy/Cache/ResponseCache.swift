import ReshapeCompression
import ReshapeRules

/// Normalized answers kept for reuse, shared by every worker of the process, bounded in bytes
/// (least recently used first out). It also coalesces: while one request fetches a key, the
/// others for that key wait for its answer instead of fetching it again. Pure bookkeeping;
/// times are monotonic seconds passed in, and waiters are the server's closures.
package final class ResponseCache: Sendable {
    /// One stored answer (always a 200) and its windows. A class: it is handed out on every
    /// hit, and as a value each copy retained each of its arrays and strings.
    package final class Stored: Sendable {
        package let body: [UInt8]
        /// The only headers an entry keeps (`Stored.init`), and the only ones one read back from
        /// the shared cache may carry.
        package static let keptHeaderNames: Set<String> = ["Content-Type", "ETag", "Reshape-Dropped"]
        /// Content-Type, ETag and Reshape-Dropped, as first answered.
        package let headers: [NameValue]
        package let dropped: Int
        package let storedAt: Double
        package let freshUntil: Double
        package let staleWhileRevalidateUntil: Double
        package let staleIfErrorUntil: Double
        let route: String
        let fingerprint: String
        /// The route's forwarded headers: its answers are per requester (`CachingHeaders`).
        let forwarded: [String]
        /// The body in each content coding asked for so far, made once and kept with the entry
        /// (nil: that coding did not make it smaller): what one worker compresses serves the
        /// others.
        let encodings = Locked<[ContentCoding: [UInt8]?]>([:])
        /// The answers a hit wrote last, one per representation (`CacheHit`, `KeptHeads.swift`):
        /// while its `Age` and `max-age` stay what they were, the next hit writes the same lines.
        let keptHeads = Locked<[KeptHead]>([])

        /// What the entry weighs in the byte bound before any encoding is added.
        var cost: Int {
            body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
                + ResponseCache.entryOverhead
        }

        /// An entry as a shared cache's replica read it back (`SharedCacheEntry.decode`).
        init(
            body: [UInt8], headers: [NameValue], dropped: Int, storedAt: Double, freshUntil: Double,
            staleWhileRevalidateUntil: Double, staleIfErrorUntil: Double, route: String, fingerprint: String,
            forwarded: [String]
        ) {
            self.body = body
            self.headers = headers
            self.dropped = dropped
            self.storedAt = storedAt
            self.freshUntil = freshUntil
            self.staleWhileRevalidateUntil = staleWhileRevalidateUntil
            self.staleIfErrorUntil = staleIfErrorUntil
            self.route = route
            self.fingerprint = fingerprint
            self.forwarded = forwarded
        }

        /// A normalized 200 to keep for `policy`, fetched from `now`; an upstream `max-age` shorter
        /// than the `ttl` wins.
        package init(
            response: HTTPResponse, dropped: Int, route: Route, policy: CachePolicy, now: Double, upstreamMaxAge: Int?
        ) {
            var ttl = Double(policy.ttlMilliseconds) / 1000
            if let upstreamMaxAge { ttl = min(ttl, Double(upstreamMaxAge)) }
            body = response.body
            headers = response.headers.filter { Self.keptHeaderNames.contains($0.name) }
            self.dropped = dropped
            storedAt = now
            freshUntil = now + ttl
            staleWhileRevalidateUntil = freshUntil + Double(policy.staleWhileRevalidateMilliseconds) / 1000
            staleIfErrorUntil = freshUntil + Double(policy.staleIfErrorMilliseconds) / 1000
            self.route = route.name
            fingerprint = route.fingerprint
            forwarded = route.varyHeaders
        }
    }

    /// A stored answer and the key it is kept under: what a compressed body is charged to.
    package struct Entry: Sendable {
        package let key: CacheKey
        package let stored: Stored

        package init(key: CacheKey, stored: Stored) {
            self.key = key
            self.stored = stored
        }
    }

    /// What a waiting request gets when the fetch it waited for ends.
    package enum Delivery: Sendable {
        /// The answer, and the entry it was stored as (nil when it was not kept).
        case answer(HTTPResponse, Entry?)
        /// The fetching request went away before its answer: look up again (one waiter leads).
        case retry
    }
    package typealias Waiter = @Sendable (Delivery) -> Void

    package enum Lookup: Sendable {
        /// Fresh: answer it.
        case fresh(Stored)
        /// Past its `ttl`, within `stale-while-revalidate`: answer it now; when `refresh`, this
        /// request must start the one background refresh (and `finish` it).
        case stale(Stored, refresh: Bool)
        /// Fetch it; `finish` answers whoever joined meanwhile. `staleIfError` is the last good
        /// copy to answer instead of an upstream failure.
        case lead(staleIfError: Stored?)
        /// Another request is fetching it; the waiter will be called.
        case joined
    }

    package struct Counters: Sendable, Equatable {
        package var hits = 0
        package var misses = 0
        package var stale = 0
        package var coalesced = 0
        package var refreshes = 0
        package var evictions = 0
        package var bytes = 0
        package var entries = 0
    }

    /// Bytes counted per entry beyond its body and headers (key, windows, list links).
    static let entryOverhead = 256

    private struct Slot {
        var stored: Stored
        /// `stored.cost` plus the encodings added since.
        var cost: Int
        var newer: CacheKey?
        var older: CacheKey?
    }

    private struct State {
        var slots: [CacheKey: Slot] = [:]
        var newest: CacheKey?
        var oldest: CacheKey?
        var waiting: [CacheKey: [Waiter]] = [:]
        var counters = Counters()
    }

    package let capacityBytes: Int
    private let state = Locked(State())

    package init(capacityBytes: Int) {
        self.capacityBytes = capacityBytes
    }

    package var counters: Counters { state.withLock { $0.counters } }

    /// The answer kept under `key` when it is fresh at `now`, counted as a hit; nil, counting
    /// nothing, otherwise (`lookup` then says what the request does).
    package func fresh(_ key: CacheKey, now: Double) -> Stored? {
        state.withLock { state in
            guard let slot = state.slots[key], now < slot.stored.freshUntil else { return nil }
            state.counters.hits += 1
            Self.touch(key, &state)
            return slot.stored
        }
    }

    /// Looks `key` up at `now`, registering `waiter` when another request is fetching it.
    package func lookup(_ key: CacheKey, now: Double, waiter: @escaping Waiter) -> Lookup {
        state.withLock { state in
            if let slot = state.slots[key] {
                if now < slot.stored.freshUntil {
                    state.counters.hits += 1
                    Self.touch(key, &state)
                    return .fresh(slot.stored)
                }
                if now < slot.stored.staleWhileRevalidateUntil {
                    state.counters.stale += 1
                    Self.touch(key, &state)
                    guard state.waiting[key] == nil else { return .stale(slot.stored, refresh: false) }
                    state.waiting[key] = []
                    state.counters.refreshes += 1
                    return .stale(slot.stored, refresh: true)
                }
            }
            if state.waiting[key] != nil {
                state.waiting[key, default: []].append(waiter)
                state.counters.coalesced += 1
                return .joined
            }
            state.waiting[key] = []
            state.counters.misses += 1
            guard let stored = state.slots[key]?.stored else { return .lead(staleIfError: nil) }
            if now < stored.staleIfErrorUntil { return .lead(staleIfError: stored) }
            Self.remove(key, &state)  // past every window: it can never be answered again
            return .lead(staleIfError: nil)
        }
    }

    /// The leading request's fetch ended: stores `answer` when given (a 200 to keep) and returns
    /// the waiters, for the caller to answer outside the lock.
    package func finish(_ key: CacheKey, storing answer: Stored?) -> [Waiter] {
        state.withLock { state in
            if let answer, answer.cost <= capacityBytes / 4 {
                Self.remove(key, &state)
                Self.insert(key, answer, cost: answer.cost + key.extraBytes, &state)
                Self.evict(sparing: key, &state, capacity: capacityBytes)
            }
            return state.waiting.removeValue(forKey: key) ?? []
        }
    }

    /// The entry's body in `coding`, compressed by `compress` only the first time it is asked
    /// for and kept with the entry from then on (counted in the byte bound while the entry is
    /// in the cache). nil when `coding` does not make the body smaller. Compressing holds the
    /// entry's own lock, not the cache's: another worker asking for the same coding of the same
    /// entry meanwhile waits for these bytes rather than making them again.
    package func body(
        of entry: Entry, as coding: ContentCoding, compress: ([UInt8]) -> [UInt8]?
    ) -> [UInt8]? {
        let (body, added) = entry.stored.encodings.withLock { encodings -> ([UInt8]?, Int) in
            if let known = encodings[coding] { return (known, 0) }
            let made = compress(entry.stored.body)
            encodings[coding] = .some(made)
            return (made, made?.count ?? 0)
        }
        guard added > 0 else { return body }
        charge(added, to: entry)
        return body
    }

    /// Counts `bytes` more (or fewer) for `entry`: only while this very entry is kept, since a
    /// replaced or evicted one is gone and its bytes with it.
    func charge(_ bytes: Int, to entry: Entry) {
        state.withLock { state in
            guard let slot = state.slots[entry.key], slot.stored === entry.stored else { return }
            state.slots[entry.key]?.cost += bytes
            state.counters.bytes += bytes
            Self.evict(sparing: entry.key, &state, capacity: capacityBytes)
        }
    }

    /// A stale copy answered instead of an upstream failure (`stale-if-error`).
    package func recordStaleIfError() {
        state.withLock { $0.counters.stale += 1 }
    }

    /// The leading request went away without an answer: its waiters look up again.
    package func abandon(_ key: CacheKey) -> [Waiter] {
        state.withLock { $0.waiting.removeValue(forKey: key) ?? [] }
    }

    /// Removes every answer of a route; returns how many.
    @discardableResult
    package func purge(route: String) -> Int {
        state.withLock { state in
            let keys = state.slots.keys.filter { $0.route == route }
            for key in keys { Self.remove(key, &state) }
            return keys.count
        }
    }

    /// After a reload: keeps only answers of routes still there with the same fingerprint.
    package func retain(fingerprints: [String: String]) {
        state.withLock { state in
            let stale = state.slots.filter { fingerprints[$0.key.route] != $0.value.stored.fingerprint }.map(\.key)
            for key in stale { Self.remove(key, &state) }
        }
    }

    // MARK: - The recency list

    private static func insert(_ key: CacheKey, _ stored: Stored, cost: Int, _ state: inout State) {
        state.slots[key] = Slot(stored: stored, cost: cost, newer: nil, older: state.newest)
        if let newest = state.newest { state.slots[newest]?.newer = key }
        state.newest = key
        if state.oldest == nil { state.oldest = key }
        state.counters.bytes += cost
        state.counters.entries += 1
    }

    /// Least recently used out until the bound holds again, never `key` (the one just added to).
    private static func evict(sparing key: CacheKey, _ state: inout State, capacity: Int) {
        while state.counters.bytes > capacity, let oldest = state.oldest, oldest != key {
            remove(oldest, &state)
            state.counters.evictions += 1
        }
    }

    private static func remove(_ key: CacheKey, _ state: inout State) {
        guard let slot = state.slots.removeValue(forKey: key) else { return }
        if let newer = slot.newer { state.slots[newer]?.older = slot.older } else { state.newest = slot.older }
        if let older = slot.older { state.slots[older]?.newer = slot.newer } else { state.oldest = slot.newer }
        state.counters.bytes -= slot.cost
        state.counters.entries -= 1
    }

    private static func touch(_ key: CacheKey, _ state: inout State) {
        guard state.newest != key, let slot = state.slots[key] else { return }
        remove(key, &state)
        insert(key, slot.stored, cost: slot.cost, &state)
    }
}

extension ResponseCache.Stored {
    /// Its `Age` at `now`, and the `max-age` left, in whole seconds.
    func ages(now: Double) -> (age: Int, remaining: Int) {
        (max(0, Int(now - storedAt)), max(0, Int(freshUntil - now)))
    }

    /// The stored answer as sent at `now`, with its age, remaining freshness and how it was found.
    package func response(now: Double, cacheStatus: CacheStatus) -> HTTPResponse {
        let (age, remaining) = ages(now: now)
        // One array, sized once: every hit makes it.
        var all: [NameValue] = []
        all.reserveCapacity(headers.count + 4)
        all.append(contentsOf: headers)
        all.append(contentsOf: CachingHeaders.route(forwarded: forwarded, maxAge: remaining))
        all.append(NameValue(name: "Age", value: String(age)))
        all.append(cacheStatus.header)
        return HTTPResponse(status: 200, headers: all, body: body)
    }
}
