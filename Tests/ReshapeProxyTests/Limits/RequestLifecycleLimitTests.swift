import ReshapeAuth
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// A `limit:` route's requests in the lifecycle: decided by the process's table, or asked of
/// Redis (`awaitingLimit`) with the table deciding when Redis does not answer; address keys
/// before the token, `auth.*` keys after it.
final class RequestLifecycleLimitTests: XCTestCase {
    private let verifier = AuthVerifierRule(
        name: "users",
        jwks: Upstream(name: "auth:users", scheme: "http", host: "127.0.0.1", port: 1, basePath: "/keys"),
        verifier: TokenVerifier(issuer: "me", audience: "app"),
        location: SourceLocation(file: "t.yaml", line: 1, column: 1))
    private let location = SourceLocation(file: "t.yaml", line: 1, column: 1)

    private func begin(
        limit: [String], auth: Bool = false, shared: Bool = false, table: LimitTable = LimitTable(capacity: 100),
        peer: String = "192.0.2.1", target: String = "/items", headers: [NameValue] = [], live: Bool = false
    ) -> (RequestLifecycle, RequestLifecycle.Action) {
        var route = Route(
            name: "items", method: "GET", path: clientTemplate("/items"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/items.json"))],
            pipeline: Pipeline(steps: []), location: location)
        route.limit = limit
        if auth { route.auth = RouteAuth(verifier: "users") }
        if live { route.live = LivePolicy() }
        var ruleSet = RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d")
        ruleSet.verifiers = ["users": verifier]
        ruleSet.limits = [
            "two": LimitPolicy(
                name: "two", count: 2, intervalSeconds: 60, burst: 2, key: .clientAddress, location: location),
            "user": LimitPolicy(
                name: "user", count: 1, intervalSeconds: 1, burst: 1, key: .auth("sub"), location: location),
            "by-query": LimitPolicy(
                name: "by-query", count: 2, intervalSeconds: 60, burst: 2, key: .query("key"), location: location),
            "by-header": LimitPolicy(
                name: "by-header", count: 2, intervalSeconds: 60, burst: 2, key: .header("X-Api-Key"),
                location: location),
        ]
        var request = HTTPRequest(method: "GET", target: target)
        request.headers = headers
        request.peerAddress = peer
        var settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(),
            admin: { _ in HTTPResponse(status: 404) })
        settings.limits = RateLimiter(table: table)
        settings.sharesLimits = shared
        return RequestLifecycle.begin(
            request, rules: ServingRules(ruleSet), draining: false, settings: settings, now: 0)
    }

    func testTheTableDecidesAndTheThirdIs429() {
        let table = LimitTable(capacity: 100)
        for _ in 0..<2 {
            guard case .fetch = begin(limit: ["two"], table: table).1 else { return XCTFail("admitted") }
        }
        let (lifecycle, action) = begin(limit: ["two"], table: table)
        guard case .respond(let response, _) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(response.status, 429)
        XCTAssertEqual(response.header("Retry-After"), "30")
        XCTAssertEqual(response.header("RateLimit"), "\"two\";r=0;t=30")
        XCTAssertEqual(lifecycle.rateLimited, FinishedRequest.RateLimited(route: "items", policy: "two"))
        // Another address has its own key.
        guard case .fetch = begin(limit: ["two"], table: table, peer: "192.0.2.2").1 else { return XCTFail() }
    }

    func testAnAdmittedStreamsHeadCarriesTheLimitHeaders() {
        let table = LimitTable(capacity: 100)
        let accept = NameValue(name: "Accept", value: "text/event-stream")
        let (_, action) = begin(limit: ["two"], table: table, headers: [accept], live: true)
        guard case .subscribe(let subscription) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(
            subscription.headHeaders,
            [
                NameValue(name: "RateLimit-Policy", value: "\"two\";q=2;w=60"),
                NameValue(name: "RateLimit", value: "\"two\";r=1;t=0"),
            ])
        // Refused, it is a 429 with them, as any answer of the route.
        _ = begin(limit: ["two"], table: table, headers: [accept], live: true)
        guard case .respond(let refused, _) = begin(limit: ["two"], table: table, headers: [accept], live: true).1
        else { return XCTFail("not refused") }
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.header("RateLimit"), "\"two\";r=0;t=30")
    }

    func testARepeatedKeyQueryParameterOrHeaderIs400() {
        let table = LimitTable(capacity: 100)
        let (_, action) = begin(limit: ["by-query"], table: table, target: "/items?key=random&k=1&key=REAL")
        guard case .respond(let response, _) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(response.status, 400)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("query parameter 'key' appears 2 times"))
        XCTAssertNil(response.header("RateLimit"), "nothing counted")

        let key = NameValue(name: "X-Api-Key", value: "a")
        let (_, twice) = begin(
            limit: ["by-header"], table: table, headers: [key, NameValue(name: "x-api-key", value: "b")])
        guard case .respond(let refused, _) = twice else { return XCTFail("\(twice)") }
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("header X-Api-Key appears 2 times"))

        // Once each is fine; so is a repeated parameter that keys nothing.
        guard case .fetch = begin(limit: ["by-query"], table: table, target: "/items?key=a&k=1&k=2").1 else {
            return XCTFail()
        }
        guard case .fetch = begin(limit: ["by-header"], table: table, headers: [key]).1 else { return XCTFail() }
    }

    func testSharedLimitsAskRedisAndTheTableDecidesWhenItDoesNotAnswer() {
        let (lifecycle, action) = begin(limit: ["two"], shared: true)
        guard case .checkLimits(let check) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(lifecycle.stateName, "awaitingLimit")
        XCTAssertEqual(check.keys.count, 1)
        XCTAssertTrue(check.keys[0].hasPrefix(SharedLimitCheck.keyPrefix))
        XCTAssertFalse(check.keys[0].contains("192.0.2.1"), "the address is hashed")
        XCTAssertEqual(check.arguments, ["30000000000", "2"])
        guard case .fetch = lifecycle.limitsChecked(nil, now: 0) else { return XCTFail("fell back to the table") }
        XCTAssertEqual(lifecycle.limitFallbacks, 1)
    }

    func testRedisRefusalIs429() {
        let (lifecycle, _) = begin(limit: ["two"], shared: true)
        guard case .respond(let response, _) = lifecycle.limitsChecked([0, 0, 12_300_000], now: 0) else {
            return XCTFail()
        }
        XCTAssertEqual(response.status, 429)
        XCTAssertEqual(response.header("Retry-After"), "13")
        XCTAssertEqual(lifecycle.limitFallbacks, 0)
    }

    func testAnAuthKeyWaitsForTheToken() {
        // No token: 401, never a 429, and nothing counted under the user's policy.
        let (lifecycle, action) = begin(limit: ["two", "user"], auth: true)
        guard case .lookUpKeys = action else { return XCTFail("\(action)") }
        guard case .respond(let response, _) = lifecycle.keysFound(VerifierKeysTests.keys, unixSeconds: 0, now: 0)
        else { return XCTFail() }
        XCTAssertEqual(response.status, 401)
        XCTAssertEqual(response.header("RateLimit-Policy"), "\"two\";q=2;w=60", "the policies checked so far")
    }

    func testACancelWhileAwaitingTheLimitStopsNothing() {
        let (lifecycle, _) = begin(limit: ["two"], shared: true)
        guard case .cancel(let settlement, _) = lifecycle.cancelled() else { return XCTFail() }
        XCTAssertTrue(settlement.cancel.isEmpty)
        XCTAssertEqual(lifecycle.stateName, "cancelled")
    }

    func testLimitsCheckedOutsideAwaitingLimitTraps() throws {
        try expectTrap(containing: "impossible event 'limitsChecked' in state 'exchanging'") {
            let (lifecycle, _) = self.begin(limit: ["two"])
            _ = lifecycle.limitsChecked(nil, now: 0)
        }
    }

    func testPolicyNamesAreQuotedAsStructuredFieldStrings() {
        // Plain names only gain the quotes; a quote or backslash is escaped, and what a
        // structured-field string cannot hold (controls, non-ASCII) is left out.
        XCTAssertEqual(LimitPolicy.quoted("per-key"), #""per-key""#)
        XCTAssertEqual(LimitPolicy.quoted(""), #""""#)
        XCTAssertEqual(LimitPolicy.quoted(#"a"b\c"#), #""a\"b\\c""#)
        XCTAssertEqual(LimitPolicy.quoted("per-\u{e9}t\u{e9}\tx"), #""per-tx""#)
    }
}
