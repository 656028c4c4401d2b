import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// Every transition of `RequestLifecycle.State`, one event at a time, and the events a state
/// cannot receive trapping (each death test runs this test binary again as a child).
final class RequestLifecycleStateMachineTests: XCTestCase {
    private func route(cached: Bool = false, upstream: String = "api") -> Route {
        var route = Route(
            name: "users", method: "GET", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: upstream, path: upstreamTemplate("/users.json"))],
            pipeline: Pipeline(steps: []), location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        if cached {
            route.cache = CachePolicy(
                ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 10_000,
                staleIfErrorMilliseconds: 60_000)
        }
        route.timeoutMilliseconds = 500
        route.fingerprint = "f1"
        return route
    }

    private func settings(
        _ cache: ResponseCache? = nil, shared: Bool = false,
        metrics: Metrics = Metrics()
    ) -> LifecycleSettings {
        var settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: metrics,
            cache: cache, admin: { _ in HTTPResponse(status: 404) })
        settings.sharesCache = shared
        return settings
    }

    private func begin(
        _ route: Route, _ settings: LifecycleSettings, now: Double = 0, target: String = "/users",
        waiter: @escaping ResponseCache.Waiter = { _ in }
    )
        -> (RequestLifecycle, RequestLifecycle.Action)
    {
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d"))
        return RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: target), rules: rules, draining: false,
            settings: settings, now: now, cacheWaiter: waiter)
    }

    private let ok = UpstreamResult.response(
        UpstreamResponse(
            status: 200, contentType: "application/json",
            body: Array("[1]".utf8)))

    /// A request whose fetch is running.
    private func exchanging() -> RequestLifecycle {
        let (lifecycle, _) = begin(route(), settings())
        XCTAssertEqual(lifecycle.stateName, "exchanging")
        return lifecycle
    }

    /// A request whose answer is decided but not yet recorded.
    private func responding() -> RequestLifecycle {
        let lifecycle = exchanging()
        _ = lifecycle.fetchFinished(0, ok, seconds: 0)
        XCTAssertEqual(lifecycle.stateName, "responding")
        return lifecycle
    }

    /// A cache whose key for `/users` was answered at 0 (fresh until 10, stale until 20).
    private func cacheWithAnAnswer() -> ResponseCache {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (first, _) = begin(route(cached: true), settings(cache))
        _ = first.fetchFinished(0, ok, seconds: 0)
        return cache
    }

    /// The refresh a stale answer asks for, not started.
    private func refreshPending(_ cache: ResponseCache, route: Route) -> RequestLifecycle? {
        let (_, action) = begin(route, settings(cache), now: 12)
        guard case .respondAndRefresh(_, let refresh) = action else {
            XCTFail("a stale answer asks for a refresh, not \(action)")
            return nil
        }
        XCTAssertEqual(refresh.stateName, "refreshPending")
        return refresh
    }

    // MARK: - Transitions

    func testRoutingAnswersAtOnceOrStartsTheFetches() {
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route()], digest: "d"))
        let lifecycle = RequestLifecycle(
            HTTPRequest(method: "GET", target: "/users"), rules: rules,
            settings: settings(), now: 0)
        XCTAssertEqual(lifecycle.stateName, "routing")
        let (notFound, action) = begin(route(), settings(), target: "/nowhere")
        guard case .respond(let response, _) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(notFound.stateName, "responding")
        let (fetching, fetch) = begin(route(), settings())
        guard case .fetch(let orders, armTimer: 500) = fetch else {
            return XCTFail("the route timer is armed: \(fetch)")
        }
        XCTAssertEqual(orders.map(\.id), [0])
        XCTAssertEqual(fetching.stateName, "exchanging")
        XCTAssertEqual(fetching.fetchesInFlight, [0])
    }

    func testExchangingEndsInAnAnswerThatIsRecordedOnce() {
        let metrics = Metrics()
        let (lifecycle, _) = begin(route(), settings(metrics: metrics))
        let action = lifecycle.fetchFinished(0, ok, seconds: 0)
        guard case .respond(let response, let settlement) = action else { return XCTFail("\(action)") }
        XCTAssertTrue(settlement.stopsRouteTimer, "the route timer stops with the answer")
        XCTAssertEqual(settlement.cancel, [])
        XCTAssertEqual(lifecycle.stateName, "responding")
        XCTAssertEqual(lifecycle.fetchesInFlight, [])
        // The server counts the request in flight as it dispatches it.
        metrics.requestStarted()
        guard case .record(let finished) = lifecycle.answered(response, now: 1, wallClockMilliseconds: 0) else {
            return XCTFail("an answer is recorded")
        }
        XCTAssertEqual(lifecycle.stateName, "answered")
        XCTAssertEqual(finished.outcome, .answered(status: 200, seconds: 1))
        XCTAssertEqual(finished.route, "users")
        XCTAssertNil(finished.accessLogLine, "no line when access logging is off")
        XCTAssertGreaterThan(finished.tapeBytes, 0, "what its body's tape took, for the memory budget")
        finished.record(in: metrics)
        let text = Metrics.exposition([metrics], digest: "d", reloads: 0, reloadFailures: 0)
        XCTAssertTrue(text.contains("reshape_requests_in_flight 0"), text)
        XCTAssertTrue(text.contains(#"reshape_requests_total{route="users",status="200"} 1"#), text)
    }

    func testTimedOutAnswers504() {
        let lifecycle = exchanging()
        guard case .respond(let response, let settlement) = lifecycle.timedOut() else { return XCTFail() }
        XCTAssertEqual(response.status, 504)
        XCTAssertEqual(settlement.cancel, [FetchCancel(id: 0, countsAsTimeout: true)], "one per upstream counts")
        XCTAssertTrue(settlement.stopsRouteTimer)
        XCTAssertEqual(lifecycle.stateName, "responding")
    }

    /// A route timer armed while a request waited for a verifier's keys may fire wherever it
    /// waits next: a 504, never a trap.
    func testTimedOutWhileWaitingAnswers504AndHandsOnACacheLead() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, _) = begin(route(cached: true), settings(cache, shared: true))
        XCTAssertEqual(leader.stateName, "awaitingSharedCache")
        let (waiter, _) = begin(route(cached: true), settings(cache, shared: true))
        XCTAssertEqual(waiter.stateName, "waitingForLeader")
        guard case .respond(let waited, let none) = waiter.timedOut() else { return XCTFail() }
        XCTAssertEqual(waited.status, 504)
        XCTAssertNil(none.wake)
        guard case .respond(let led, let settlement) = leader.timedOut() else { return XCTFail() }
        XCTAssertEqual(led.status, 504)
        XCTAssertTrue(String(decoding: led.body, as: UTF8.self).contains(#""code":"route-timeout""#))
        let wake = try XCTUnwrap(settlement.wake, "the key it led goes to its waiters")
        XCTAssertEqual(wake.waiters.count, 1)
        XCTAssertEqual(leader.stateName, "responding")
    }

    func testCancelledWhileExchangingStopsItsFetchAndIsNoLongerInFlight() {
        let metrics = Metrics()
        let (lifecycle, _) = begin(route(), settings(metrics: metrics))
        metrics.requestStarted()
        guard case .cancel(let settlement, let finished) = lifecycle.cancelled() else { return XCTFail() }
        XCTAssertEqual(lifecycle.stateName, "cancelled")
        XCTAssertEqual(settlement.cancel, [FetchCancel(id: 0, countsAsTimeout: false)])
        XCTAssertTrue(settlement.stopsRouteTimer)
        XCTAssertNil(settlement.wake)
        XCTAssertEqual(finished.outcome, .cancelled)
        finished.record(in: metrics)
        XCTAssertTrue(
            Metrics.exposition([metrics], digest: "d", reloads: 0, reloadFailures: 0)
                .contains("reshape_requests_in_flight 0"))
    }

    func testWaitingForLeaderIsAnsweredByItsDelivery() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, _) = begin(route(cached: true), settings(cache))
        let deliveries = Mailbox()
        let (waiter, action) = begin(route(cached: true), settings(cache), waiter: { deliveries.post($0) })
        guard case .wait = action else { return XCTFail("\(action)") }
        XCTAssertEqual(waiter.stateName, "waitingForLeader")
        XCTAssertTrue(deliveries.items.isEmpty)
        // The leader's answer settles the key: the waiters are woken by the server, as an action.
        guard case .respond(_, let settlement) = leader.fetchFinished(0, ok, seconds: 0),
            let wake = settlement.wake
        else { return XCTFail("the leader's answer wakes its waiter") }
        XCTAssertTrue(deliveries.items.isEmpty, "nobody is woken from inside the lifecycle")
        XCTAssertEqual(wake.waiters.count, 1)
        for waiter in wake.waiters { waiter(wake.delivery) }
        guard case .respond(let response, _) = waiter.cacheDelivered(deliveries.items[0], now: 0) else {
            return XCTFail()
        }
        XCTAssertEqual(response.headers.first { $0.name == CacheStatus.headerName }?.value, "coalesced")
        XCTAssertEqual(waiter.stateName, "responding")
    }

    func testARetriedWaiterLeadsOrWaitsAgain() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, _) = begin(route(cached: true), settings(cache))
        let deliveries = Mailbox()
        let (first, _) = begin(route(cached: true), settings(cache), waiter: { deliveries.post($0) })
        let (second, _) = begin(route(cached: true), settings(cache), waiter: { deliveries.post($0) })
        leader.cancelled().wakeWaiters()
        XCTAssertEqual(deliveries.items.count, 2, "a leader that goes away hands the fetch to its waiters")
        guard case .fetch = first.cacheDelivered(deliveries.items[0], now: 0) else { return XCTFail() }
        XCTAssertEqual(first.stateName, "exchanging")
        guard case .wait = second.cacheDelivered(deliveries.items[1], now: 0) else { return XCTFail() }
        XCTAssertEqual(second.stateName, "waitingForLeader")
        guard case .cancel(let settlement, _) = second.cancelled() else { return XCTFail() }
        XCTAssertNil(settlement.wake, "a waiter that goes away hands nothing on")
        XCTAssertEqual(second.stateName, "cancelled")
    }

    func testARetriedWaiterAsksTheSharedCacheFirstWhenThereIsOne() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (leader, _) = begin(route(cached: true), settings(cache))
        let deliveries = Mailbox()
        let (waiter, _) = begin(route(cached: true), settings(cache, shared: true), waiter: { deliveries.post($0) })
        leader.cancelled().wakeWaiters()
        guard case .lookUpShared = waiter.cacheDelivered(deliveries.items[0], now: 0) else { return XCTFail() }
        XCTAssertEqual(waiter.stateName, "awaitingSharedCache")
    }

    func testAwaitingSharedCacheAnswersAFreshEntryOrFetches() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let (missing, action) = begin(route(cached: true), settings(cache, shared: true))
        guard case .lookUpShared(let key) = action else { return XCTFail("\(action)") }
        XCTAssertTrue(key.hasPrefix("reshape:v1:"))
        XCTAssertEqual(missing.stateName, "awaitingSharedCache")
        guard case .fetch = missing.sharedLookupFinished(nil, now: 0, unixMilliseconds: 0) else { return XCTFail() }
        XCTAssertEqual(missing.stateName, "exchanging")
        guard case .respond(let response, let settlement) = missing.fetchFinished(0, ok, seconds: 0) else {
            return XCTFail()
        }
        let store = try XCTUnwrap(settlement.store, "the leader's answer is stored in the shared cache")
        XCTAssertEqual(store.key, key)
        XCTAssertEqual(store.stored.body, Array("[1]".utf8))

        let other = ResponseCache(capacityBytes: 1 << 20)
        let stored = ResponseCache.Stored(
            response: response, dropped: 0, route: route(cached: true),
            policy: try XCTUnwrap(route(cached: true).cache), now: 0, upstreamMaxAge: nil)
        let bytes = SharedCacheEntry.encode(stored, now: 0, unixMilliseconds: 1_000_000)
        let (found, _) = begin(route(cached: true), settings(other, shared: true), now: 1)
        let answer = found.sharedLookupFinished(bytes, now: 1, unixMilliseconds: 1_001_000)
        guard case .respond(let hit, _) = answer else { return XCTFail("\(answer)") }
        XCTAssertEqual(hit.headers.first { $0.name == CacheStatus.headerName }?.value, "hit")
        XCTAssertEqual(found.stateName, "responding")

        let (gone, _) = begin(route(cached: true), settings(ResponseCache(capacityBytes: 1 << 20), shared: true))
        _ = gone.cancelled()
        XCTAssertEqual(gone.stateName, "cancelled")
    }

    func testAStaleAnswerRespondsAndItsRefreshRunsWithoutAClient() {
        let cache = cacheWithAnAnswer()
        guard let refresh = refreshPending(cache, route: route(cached: true)) else { return }
        XCTAssertTrue(refresh.isBackground)
        guard case .fetch = refresh.startRefresh() else { return XCTFail() }
        XCTAssertEqual(refresh.stateName, "exchanging")
        _ = refresh.fetchFinished(0, ok, seconds: 0)
        XCTAssertEqual(refresh.stateName, "responding")
    }

    func testARefreshThatCannotStartAnswersTheLastGoodCopy() throws {
        // The route now fetches from an upstream the rules lack: the refresh cannot even start.
        let cache = cacheWithAnAnswer()
        guard let refresh = refreshPending(cache, route: route(cached: true, upstream: "gone")) else { return }
        guard case .respond(let response, _) = refresh.startRefresh() else { return XCTFail() }
        XCTAssertEqual(response.headers.first { $0.name == CacheStatus.headerName }?.value, "stale")
        XCTAssertEqual(refresh.stateName, "responding")
    }

    func testACancelledRefreshHandsTheKeyBack() {
        let cache = cacheWithAnAnswer()
        guard let refresh = refreshPending(cache, route: route(cached: true)) else { return }
        guard case .cancel(_, let finished) = refresh.cancelled() else { return XCTFail() }
        XCTAssertEqual(finished.outcome, .background, "a refresh is nobody's request")
        XCTAssertEqual(refresh.stateName, "cancelled")
        guard case .respondAndRefresh = begin(route(cached: true), settings(cache), now: 13).1 else {
            return XCTFail("the next stale answer starts the refresh again")
        }
    }

    func testEveryStateHasADistinctName() {
        XCTAssertEqual(
            RequestLifecycle.StateName.allCases.count, 12, "a new state needs its name here and in the diagram")
    }

    // MARK: - Impossible events

    func testASecondAnswerTraps() throws {
        let lifecycle = responding()
        _ = lifecycle.answered(HTTPResponse(status: 200), now: 0, wallClockMilliseconds: 0)
        try expectTrap(containing: "impossible event 'answered' in state 'answered'") {
            _ = lifecycle.answered(HTTPResponse(status: 200), now: 0, wallClockMilliseconds: 0)
        }
    }

    func testAnAnswerBeforeOneIsDecidedTraps() throws {
        let lifecycle = exchanging()
        try expectTrap(containing: "impossible event 'answered' in state 'exchanging'") {
            _ = lifecycle.answered(HTTPResponse(status: 200), now: 0, wallClockMilliseconds: 0)
        }
    }

    func testAFetchAfterTheAnswerTraps() throws {
        let lifecycle = exchanging()
        _ = lifecycle.timedOut()
        try expectTrap(containing: "impossible event 'fetchFinished' in state 'responding'") {
            _ = lifecycle.fetchFinished(0, self.ok, seconds: 1)
        }
    }

    func testATimeoutAfterTheAnswerTraps() throws {
        let lifecycle = responding()
        try expectTrap(containing: "impossible event 'timedOut' in state 'responding'") { _ = lifecycle.timedOut() }
    }

    func testACancelAfterTheAnswerTraps() throws {
        let lifecycle = responding()
        try expectTrap(containing: "impossible event 'cancelled' in state 'responding'") { _ = lifecycle.cancelled() }
    }

    func testAFetchForARequestThatWaitsForAnotherTraps() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        _ = begin(route(cached: true), settings(cache))
        let (waiter, _) = begin(route(cached: true), settings(cache))
        try expectTrap(containing: "impossible event 'fetchFinished' in state 'waitingForLeader'") {
            _ = waiter.fetchFinished(0, self.ok, seconds: 0)
        }
    }

    func testADeliveryToARequestThatDoesNotWaitTraps() throws {
        let lifecycle = exchanging()
        try expectTrap(containing: "impossible event 'cacheDelivered' in state 'exchanging'") {
            _ = lifecycle.cacheDelivered(.retry, now: 0)
        }
    }

    func testASharedCacheReplyNobodyAskedForTraps() throws {
        let lifecycle = exchanging()
        try expectTrap(containing: "impossible event 'sharedLookupFinished' in state 'exchanging'") {
            _ = lifecycle.sharedLookupFinished(nil, now: 0, unixMilliseconds: 0)
        }
    }

    func testARefreshStartedTwiceTraps() throws {
        let cache = cacheWithAnAnswer()
        guard let refresh = refreshPending(cache, route: route(cached: true)) else { return }
        _ = refresh.startRefresh()
        try expectTrap(containing: "impossible event 'startRefresh' in state 'exchanging'") {
            _ = refresh.startRefresh()
        }
    }
}
