import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// Requests of a cached route through the lifecycle, with every fetch answered by hand.
final class CacheLifecycleTests: XCTestCase {
    private func route(forwardHeaders: [String] = []) -> Route {
        var route = Route(
            name: "users", method: "GET", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            forwardHeaders: forwardHeaders, pipeline: Pipeline(steps: []),
            location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        route.cache = CachePolicy(
            ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 10_000, staleIfErrorMilliseconds: 60_000)
        route.fingerprint = "f1"
        return route
    }

    private func settings(_ cache: ResponseCache, endpoints: Endpoints = .all, shared: Bool = false)
        -> LifecycleSettings
    {
        var settings = LifecycleSettings(
            endpoints: endpoints, canFetch: true, accessLog: false, metrics: Metrics(), cache: cache,
            admin: { _ in HTTPResponse(status: 404) })
        settings.sharesCache = shared
        return settings
    }

    private func begin(
        _ cache: ResponseCache, _ route: Route, now: Double, headers: [NameValue] = [], shared: Bool = false,
        waiter: @escaping ResponseCache.Waiter = { _ in }
    ) -> (RequestLifecycle, RequestLifecycle.Action) {
        RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users", headers: headers),
            rules: ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d")),
            draining: false, settings: settings(cache, shared: shared), now: now, cacheWaiter: waiter)
    }

    private func header(_ action: RequestLifecycle.Action, _ name: String) -> String? {
        switch action {
        case .respond(let response, _), .respondAndRefresh(let response, _):
            return response.headers.first { $0.name == name }?.value
        default:
            return nil
        }
    }

    private func ok(_ body: String, cacheControl: String? = nil) -> UpstreamResult {
        .response(
            UpstreamResponse(
                status: 200, contentType: "application/json", body: Array(body.utf8), cacheControl: cacheControl))
    }

    func testAMissIsStoredAndTheNextRequestIsAHit() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (first, step) = begin(cache, route(), now: 0)
        guard case .fetch = step else { return XCTFail() }
        let answer = first.fetchFinished(0, ok(#"[{"a":1}]"#), seconds: 0.1)
        XCTAssertEqual(header(answer, "Reshape-Cache"), "miss")
        XCTAssertEqual(header(answer, "Cache-Control"), "max-age=10")
        let (_, hit) = begin(cache, route(), now: 4)
        XCTAssertEqual(header(hit, "Reshape-Cache"), "hit")
        XCTAssertEqual(header(hit, "Age"), "4")
        XCTAssertEqual(header(hit, "Cache-Control"), "max-age=6")
        XCTAssertEqual(header(hit, "ETag"), header(answer, "ETag"))
        guard case .respond(let body, _) = hit else { return XCTFail() }
        XCTAssertEqual(body.body.text, #"[{"a":1}]"#)
    }

    func testConcurrentRequestsWaitForOneFetch() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, _) = begin(cache, route(), now: 0)
        let deliveries = Mailbox()
        var waiters: [RequestLifecycle] = []
        for _ in 0..<199 {
            let (waiter, step) = begin(cache, route(), now: 0, waiter: { deliveries.post($0) })
            guard case .wait = step else { return XCTFail("a second request for the key waits") }
            waiters.append(waiter)
        }
        leader.fetchFinished(0, ok("[]"), seconds: 0).wakeWaiters()
        XCTAssertEqual(deliveries.items.count, 199)
        var step = waiters[0].cacheDelivered(deliveries.items[0], now: 0.2)
        XCTAssertEqual(header(step, "Reshape-Cache"), "coalesced")
        step = waiters[1].cacheDelivered(deliveries.items[1], now: 0.2)
        guard case .respond(let response, _) = step else { return XCTFail() }
        XCTAssertEqual(response.body.text, "[]")
        XCTAssertEqual(cache.counters.misses, 1)
    }

    /// A leader's answer settles its key as values the server performs: the store in the shared
    /// cache and its waiters' delivery. Nobody is woken from inside the lifecycle.
    func testALeadersSettleReturnsTheStoreAndTheWaitersDeliveryAsActions() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, asked) = begin(cache, route(), now: 0, shared: true)
        guard case .lookUpShared(let key) = asked else { return XCTFail("\(asked)") }
        guard case .fetch = leader.sharedLookupFinished(nil, now: 0, unixMilliseconds: 0) else { return XCTFail() }
        let deliveries = Mailbox()
        let (waiter, waits) = begin(cache, route(), now: 0, shared: true, waiter: { deliveries.post($0) })
        guard case .wait = waits else { return XCTFail("\(waits)") }
        guard case .respond(let answer, let settlement) = leader.fetchFinished(0, ok("[1]"), seconds: 0) else {
            return XCTFail()
        }
        XCTAssertEqual(header(.respond(answer, settlement), "Reshape-Cache"), "miss")
        let store = try XCTUnwrap(settlement.store)
        XCTAssertEqual(store.key, key, "stored under the key it was looked up by")
        XCTAssertEqual(store.stored.body.text, "[1]")
        let wake = try XCTUnwrap(settlement.wake)
        XCTAssertEqual(wake.waiters.count, 1)
        XCTAssertTrue(deliveries.items.isEmpty)
        guard case .answer(let shared, _) = wake.delivery else { return XCTFail("\(wake.delivery)") }
        XCTAssertEqual(shared.header("Reshape-Cache"), "coalesced")
        for waiting in wake.waiters { waiting(wake.delivery) }
        XCTAssertEqual(header(waiter.cacheDelivered(deliveries.items[0], now: 0), "Reshape-Cache"), "coalesced")
    }

    /// A leader that goes away hands its key on: every waiter is told to look up again.
    func testALeaderThatLeavesWakesItsWaitersToRetry() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, _) = begin(cache, route(), now: 0)
        _ = begin(cache, route(), now: 0)
        guard case .cancel(let settlement, let finished) = leader.cancelled(), let wake = settlement.wake else {
            return XCTFail("the waiter is woken")
        }
        XCTAssertEqual(wake.waiters.count, 1)
        guard case .retry = wake.delivery else { return XCTFail("\(wake.delivery)") }
        XCTAssertEqual(settlement.cancel, [FetchCancel(id: 0, countsAsTimeout: false)])
        XCTAssertEqual(finished.outcome, .cancelled)
    }

    func testEachCredentialHasItsOwnAnswer() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let forwarding = route(forwardHeaders: ["Authorization"])
        let (ada, step) = begin(
            cache, forwarding, now: 0, headers: [NameValue(name: "Authorization", value: "Bearer ada")])
        guard case .fetch = step else { return XCTFail() }
        _ = ada.fetchFinished(0, ok(#"["ada's"]"#), seconds: 0)
        let (_, bob) = begin(
            cache, forwarding, now: 1, headers: [NameValue(name: "authorization", value: "Bearer bob")])
        guard case .fetch = bob else { return XCTFail("another credential never sees ada's answer") }
        let (_, adaAgain) = begin(
            cache, forwarding, now: 1, headers: [NameValue(name: "Authorization", value: "Bearer ada")])
        XCTAssertEqual(header(adaAgain, "Reshape-Cache"), "hit")
    }

    func testNoStoreFromTheUpstreamIsNotKept() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (first, _) = begin(cache, route(), now: 0)
        XCTAssertEqual(
            header(first.fetchFinished(0, ok("[]", cacheControl: "private, max-age=60"), seconds: 0), "Reshape-Cache"),
            "miss")
        guard case .fetch = begin(cache, route(), now: 1).1 else { return XCTFail("a private answer is not cached") }
    }

    /// What the upstream forbade is passed on: downstream caches must not keep what Reshape may not.
    func testTheUpstreamsNoStoreAndPrivateReachTheClient() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (first, _) = begin(cache, route(), now: 0)
        XCTAssertEqual(
            header(first.fetchFinished(0, ok("[]", cacheControl: "no-store"), seconds: 0), "Cache-Control"), "no-store")
        let (second, _) = begin(cache, route(), now: 1)
        XCTAssertEqual(
            header(second.fetchFinished(0, ok("[]", cacheControl: "private, max-age=60"), seconds: 0), "Cache-Control"),
            "private, no-cache")
    }

    func testStaleAnswersAreServedAtOnceWithOneRefreshAndOnErrors() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (first, _) = begin(cache, route(), now: 0)
        _ = first.fetchFinished(0, ok("[1]"), seconds: 0)
        let (_, action) = begin(cache, route(), now: 12)
        XCTAssertEqual(header(action, "Reshape-Cache"), "stale")
        guard case .respondAndRefresh(_, let refresh) = action else { return XCTFail("one refresh starts") }
        guard case .fetch = refresh.startRefresh() else { return XCTFail() }
        let (_, second) = begin(cache, route(), now: 13)
        XCTAssertEqual(header(second, "Reshape-Cache"), "stale")
        guard case .respond = second else { return XCTFail("exactly one refresh while it runs") }
        _ = refresh.fetchFinished(0, ok("[2]"), seconds: 0)
        XCTAssertNil(
            refresh.answered(HTTPResponse(status: 200), now: 13, wallClockMilliseconds: 0).accessLogLine,
            "a refresh is not a request"
        )
        guard case .respond(let fresh, _) = begin(cache, route(), now: 14).1 else { return XCTFail() }
        XCTAssertEqual(fresh.body.text, "[2]")

        // Past stale-while-revalidate, within stale-if-error: an upstream failure answers the last good copy.
        let (late, _) = begin(cache, route(), now: 40)
        let failed = late.fetchFinished(0, .failure(.connect, message: "down"), seconds: 0)
        XCTAssertEqual(header(failed, "Reshape-Cache"), "stale")
        guard case .respond(let copy, _) = failed else { return XCTFail() }
        XCTAssertEqual(copy.body.text, "[2]")
        let (tooLate, _) = begin(cache, route(), now: 200)
        guard case .respond(let error, _) = tooLate.fetchFinished(0, .failure(.connect, message: "down"), seconds: 0)
        else { return XCTFail() }
        XCTAssertEqual(error.status, 502, "after stale-if-error, the failure is answered")
    }

    func testPurgeAnswersOnlyTheAdminListenerOrALocalClient() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (first, _) = begin(cache, route(), now: 0)
        _ = first.fetchFinished(0, ok("[]"), seconds: 0)
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route()], digest: "d"))
        func purge(_ endpoints: Endpoints, loopback: Bool, method: String = "POST") -> HTTPResponse {
            var request = HTTPRequest(method: method, target: "/_reshape/cache/purge?route=users")
            request.fromLoopback = loopback
            guard
                case .respond(let response, _) = RequestLifecycle.begin(
                    request, rules: rules, draining: false,
                    settings: settings(cache, endpoints: endpoints), now: 0
                ).1
            else {
                return HTTPResponse(status: 0)
            }
            return response
        }
        XCTAssertEqual(purge(.all, loopback: false).status, 404)
        XCTAssertEqual(
            purge(.routes, loopback: true).status, 404, "with an admin listener, the public port knows no admin paths")
        XCTAssertEqual(purge(.all, loopback: true, method: "GET").status, 405)
        let done = purge(.admin, loopback: false)
        XCTAssertEqual(done.status, 200)
        XCTAssertEqual(done.body.text, #"{"route":"users","purged":1}"#)
        XCTAssertEqual(cache.counters.entries, 0)
    }
}

/// Deliveries collected from waiter callbacks.
final class Mailbox: @unchecked Sendable {
    private(set) var items: [ResponseCache.Delivery] = []
    func post(_ delivery: ResponseCache.Delivery) { items.append(delivery) }
}
