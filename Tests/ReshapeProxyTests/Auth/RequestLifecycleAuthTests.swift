import ReshapeAuth
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// The `awaitingKeys` state: a request of an `auth` route asks for its verifier's keys before
/// anything else, and is answered 401, 403 or 503, or goes on, by what `keysFound` brings. Tokens
/// that pass are tested end to end (AuthRouteTests), signed by a real JWT library.
final class RequestLifecycleAuthTests: XCTestCase {
    private let verifier = AuthVerifierRule(
        name: "users",
        jwks: Upstream(name: "auth:users", scheme: "http", host: "127.0.0.1", port: 1, basePath: "/keys"),
        verifier: TokenVerifier(issuer: "me", audience: "app"),
        location: SourceLocation(file: "t.yaml", line: 1, column: 1))

    private func begin(authorization: String? = nil, timeout: Int? = nil) -> (RequestLifecycle, RequestLifecycle.Action)
    {
        var route = Route(
            name: "me", method: "GET", path: clientTemplate("/me"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            pipeline: Pipeline(steps: []), location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        route.auth = RouteAuth(verifier: "users")
        route.timeoutMilliseconds = timeout
        var ruleSet = RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d")
        ruleSet.verifiers = ["users": verifier]
        var request = HTTPRequest(method: "GET", target: "/me")
        if let authorization { request.headers.append(NameValue(name: "Authorization", value: authorization)) }
        let settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(),
            admin: { _ in HTTPResponse(status: 404) })
        return RequestLifecycle.begin(
            request, rules: ServingRules(ruleSet), draining: false, settings: settings, now: 0)
    }

    func testAnAuthRouteAsksForTheKeysFirst() {
        let (lifecycle, action) = begin()
        guard case .lookUpKeys(let asked, refetch: false, armTimer: nil) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(asked.name, "users")
        XCTAssertEqual(lifecycle.stateName, "awaitingKeys")
        XCTAssertTrue(lifecycle.fetchesInFlight.isEmpty, "nothing is fetched before the token is checked")
    }

    func testNoKeysToBeHadIs503() {
        let (lifecycle, _) = begin(authorization: "Bearer x.y.z")
        guard case .respond(let response, _) = lifecycle.keysFound(nil, unixSeconds: 0, now: 0) else {
            return XCTFail()
        }
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(lifecycle.authCheck, FinishedRequest.AuthCheck(verifier: "users", result: "unavailable"))
    }

    func testNoTokenIs401WithAChallengeWithoutAnError() {
        let (lifecycle, _) = begin()
        guard case .respond(let response, _) = lifecycle.keysFound(VerifierKeysTests.keys, unixSeconds: 0, now: 0)
        else { return XCTFail() }
        XCTAssertEqual(response.status, 401)
        XCTAssertEqual(response.headers.first { $0.name == "WWW-Authenticate" }?.value, #"Bearer realm="reshape""#)
        XCTAssertEqual(lifecycle.authCheck?.result, "missing")
        XCTAssertEqual(lifecycle.stateName, "responding")
    }

    func testAnUnknownKeyAsksOnceForTheKeysAgainThenIs401() {
        // {"alg":"ES256","kid":"rotated"} . {} . a signature never looked at
        let (lifecycle, _) = begin(authorization: "Bearer eyJhbGciOiJFUzI1NiIsImtpZCI6InJvdGF0ZWQifQ.e30.c2ln")
        guard
            case .lookUpKeys(_, refetch: true, armTimer: nil) = lifecycle.keysFound(
                VerifierKeysTests.keys, unixSeconds: 0, now: 0)
        else { return XCTFail("an unknown kid asks for the keys again") }
        XCTAssertEqual(lifecycle.stateName, "awaitingKeys")
        guard case .respond(let response, _) = lifecycle.keysFound(VerifierKeysTests.keys, unixSeconds: 0, now: 0)
        else { return XCTFail() }
        XCTAssertEqual(response.status, 401)
        XCTAssertEqual(
            response.headers.first { $0.name == "WWW-Authenticate" }?.value,
            #"Bearer realm="reshape", error="invalid_token""#)
        XCTAssertEqual(lifecycle.authCheck?.result, "unknown-key")
        XCTAssertEqual(lifecycle.authRefusal, "no key with the token's kid")
    }

    func testTheRouteTimeoutBoundsTheWaitForKeysThenIs503() {
        let (lifecycle, action) = begin(authorization: "Bearer x.y.z", timeout: 250)
        guard case .lookUpKeys(_, refetch: false, armTimer: 250) = action else { return XCTFail("\(action)") }
        guard case .respond(let response, let settlement) = lifecycle.timedOut() else { return XCTFail() }
        XCTAssertEqual(response.status, 503)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains(#""code":"auth-unavailable""#))
        XCTAssertTrue(settlement.stopsRouteTimer)
        XCTAssertEqual(lifecycle.authCheck?.result, "unavailable")
    }

    func testARefusalStopsTheTimerArmedForTheKeys() {
        let (lifecycle, _) = begin(timeout: 250)
        guard
            case .respond(let response, let settlement) = lifecycle.keysFound(
                VerifierKeysTests.keys, unixSeconds: 0, now: 0)
        else { return XCTFail() }
        XCTAssertEqual(response.status, 401)
        XCTAssertTrue(settlement.stopsRouteTimer, "the timer armed while waiting does not outlive the answer")
    }

    func testACancelWhileWaitingForKeysStopsNothing() {
        let (lifecycle, _) = begin(authorization: "Bearer x")
        guard case .cancel(let settlement, _) = lifecycle.cancelled() else { return XCTFail() }
        XCTAssertTrue(settlement.cancel.isEmpty)
        XCTAssertFalse(settlement.stopsRouteTimer)
        XCTAssertEqual(lifecycle.stateName, "cancelled")
    }

    func testKeysForARequestNotWaitingForThemTrap() throws {
        try expectTrap(containing: "impossible event 'keysFound' in state 'responding'") {
            let (lifecycle, _) = begin()
            _ = lifecycle.keysFound(nil, unixSeconds: 0, now: 0)
            _ = lifecycle.keysFound(nil, unixSeconds: 0, now: 0)
        }
    }
}
