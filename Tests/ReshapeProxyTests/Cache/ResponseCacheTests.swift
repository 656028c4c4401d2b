import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The cache's bookkeeping: windows, coalescing, the byte bound, purge and reload.
final class ResponseCacheTests: XCTestCase {
    private let route = makeRoute("users", "GET", "/users")
    private let policy = CachePolicy(
        ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 5_000, staleIfErrorMilliseconds: 60_000)

    private func key(_ name: String, route: String = "users") -> CacheKey { CacheKey(route: route, digest: name) }

    private func stored(_ body: String, now: Double, maxAge: Int? = nil) -> ResponseCache.Stored {
        ResponseCache.Stored(
            response: HTTPResponse(
                status: 200,
                headers: [
                    NameValue(name: "Content-Type", value: "application/json"),
                    NameValue(name: "ETag", value: "\"t\""),
                ],
                body: Array(body.utf8)),
            dropped: 0, route: route, policy: policy, now: now, upstreamMaxAge: maxAge)
    }

    private let ignore: ResponseCache.Waiter = { _ in }

    func testFreshThenStaleWithOneRefreshThenLeadWithTheLastGoodCopy() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        guard case .lead(nil) = cache.lookup(key("a"), now: 0, waiter: ignore) else { return XCTFail() }
        XCTAssertTrue(cache.finish(key("a"), storing: stored("[1]", now: 0)).isEmpty)
        guard case .fresh(let hit) = cache.lookup(key("a"), now: 9, waiter: ignore) else { return XCTFail() }
        XCTAssertEqual(
            hit.response(now: 9, cacheStatus: .hit).headers.map(\.value),
            ["application/json", "\"t\"", "max-age=1", "9", "hit"])
        guard case .stale(_, refresh: true) = cache.lookup(key("a"), now: 11, waiter: ignore) else {
            return XCTFail("the first stale lookup refreshes")
        }
        guard case .stale(_, refresh: false) = cache.lookup(key("a"), now: 12, waiter: ignore) else {
            return XCTFail("exactly one refresh")
        }
        guard case .joined = cache.lookup(key("a"), now: 16, waiter: ignore) else {
            return XCTFail("past the window, wait for the refresh")
        }
        XCTAssertEqual(
            cache.finish(key("a"), storing: nil).count, 1, "a failed refresh answers its waiters and stores nothing")
        guard case .lead(let last?) = cache.lookup(key("a"), now: 30, waiter: ignore) else {
            return XCTFail("within stale-if-error")
        }
        XCTAssertEqual(last.body, Array("[1]".utf8))
        _ = cache.finish(key("a"), storing: nil)
        guard case .lead(nil) = cache.lookup(key("a"), now: 71, waiter: ignore) else {
            return XCTFail("past every window")
        }
        XCTAssertEqual(cache.counters.entries, 0)
    }

    func testConcurrentLookupsShareOneFetchAndAnAbandonedFetchIsRetried() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        guard case .lead = cache.lookup(key("a"), now: 0, waiter: ignore) else { return XCTFail() }
        let delivered = Counter()
        for _ in 0..<199 {
            guard
                case .joined = cache.lookup(
                    key("a"), now: 0,
                    waiter: { delivery in
                        if case .answer = delivery { delivered.add() }
                    })
            else { return XCTFail() }
        }
        for waiter in cache.finish(key("a"), storing: stored("[]", now: 0)) {
            waiter(.answer(HTTPResponse(status: 200), nil))
        }
        XCTAssertEqual(delivered.value, 199)
        XCTAssertEqual(cache.counters.misses, 1)
        XCTAssertEqual(cache.counters.coalesced, 199)

        guard case .lead = cache.lookup(key("b"), now: 0, waiter: ignore) else { return XCTFail() }
        let retried = Counter()
        _ = cache.lookup(key("b"), now: 0, waiter: { if case .retry = $0 { retried.add() } })
        for waiter in cache.abandon(key("b")) { waiter(.retry) }
        XCTAssertEqual(retried.value, 1)
        guard case .lead = cache.lookup(key("b"), now: 0, waiter: ignore) else {
            return XCTFail("after an abandon, the next lookup leads")
        }
    }

    func testTheByteBoundEvictsTheLeastRecentlyUsed() {
        let body = String(repeating: "x", count: 1000)
        let cache = ResponseCache(capacityBytes: 10 * (1000 + 64 + ResponseCache.entryOverhead))
        for index in 0..<10 {
            _ = cache.lookup(key("\(index)"), now: 0, waiter: ignore)
            _ = cache.finish(key("\(index)"), storing: stored(body, now: 0))
        }
        // 0 is now the newest.
        guard case .fresh = cache.lookup(key("0"), now: 1, waiter: ignore) else { return XCTFail() }
        for index in 10..<1000 {
            _ = cache.lookup(key("\(index)"), now: 0, waiter: ignore)
            _ = cache.finish(key("\(index)"), storing: stored(body, now: 0))
            XCTAssertLessThanOrEqual(cache.counters.bytes, cache.capacityBytes)
        }
        XCTAssertGreaterThan(cache.counters.evictions, 900)
        guard case .fresh = cache.lookup(key("999"), now: 1, waiter: ignore) else { return XCTFail("the newest stays") }
        guard case .lead = cache.lookup(key("1"), now: 1, waiter: ignore) else {
            return XCTFail("the oldest went first")
        }
        _ = cache.lookup(key("huge"), now: 0, waiter: ignore)
        _ = cache.finish(key("huge"), storing: stored(String(repeating: "y", count: cache.capacityBytes / 2), now: 0))
        guard case .lead = cache.lookup(key("huge"), now: 1, waiter: ignore) else {
            return XCTFail("an answer over a quarter of the cache is not kept")
        }
    }

    func testAnUpstreamMaxAgeShorterThanTheTTLWins() {
        let short = stored("[]", now: 100, maxAge: 2)
        XCTAssertEqual(short.freshUntil, 102)
        XCTAssertEqual(stored("[]", now: 100, maxAge: 60).freshUntil, 110)
        XCTAssertEqual(CacheControl(header: "public, max-age=60, s-maxage=5"), CacheControl(mayStore: true, maxAge: 5))
        XCTAssertFalse(CacheControl(header: "Private").mayStore)
        XCTAssertFalse(CacheControl(header: "max-age=9").combined(with: CacheControl(header: "no-store")).mayStore)
    }

    func testPurgeAndReloadKeepOnlyWhatIsStillRight() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        for name in ["a", "b"] {
            _ = cache.lookup(key(name), now: 0, waiter: ignore)
            _ = cache.finish(key(name), storing: stored("[]", now: 0))
        }
        _ = cache.lookup(key("c", route: "other"), now: 0, waiter: ignore)
        var otherRoute = makeRoute("other", "GET", "/other")
        otherRoute.fingerprint = "v1"
        _ = cache.finish(
            key("c", route: "other"),
            storing: ResponseCache.Stored(
                response: HTTPResponse(status: 200), dropped: 0, route: otherRoute,
                policy: policy, now: 0, upstreamMaxAge: nil))
        XCTAssertEqual(cache.purge(route: "users"), 2)
        cache.retain(fingerprints: ["other": "v1"])
        XCTAssertEqual(cache.counters.entries, 1, "an unchanged route keeps its answers")
        cache.retain(fingerprints: ["other": "v2"])
        XCTAssertEqual(cache.counters.entries, 0, "a changed route loses them")
    }
}

/// A thread-safe count for waiter callbacks.
final class Counter: @unchecked Sendable {
    private var count = 0
    func add() { count += 1 }
    var value: Int { count }
}
