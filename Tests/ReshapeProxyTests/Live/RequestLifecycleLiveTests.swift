import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// A live route's requests: which become a subscription, what it carries, how it is refused,
/// and the one access-log line it ends with; and a plain GET answered from an open stream.
final class RequestLifecycleLiveTests: XCTestCase {
    private func route(maxSubscribers: Int = 10) -> Route {
        var route = Route(
            name: "users", method: "GET", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            pipeline: Pipeline(steps: []), location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        route.live = LivePolicy(maxSubscribers: maxSubscribers)
        route.forwardHeaders = ["Authorization"]
        return route
    }

    private func settings(accessLog: Bool = false, servesLive: Bool = false) -> LifecycleSettings {
        var settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: accessLog, metrics: Metrics(),
            admin: { _ in HTTPResponse(status: 404) })
        settings.servesLive = servesLive
        return settings
    }

    private func begin(
        _ method: String = "GET", headers: [NameValue], minor: Int = 1, settings: LifecycleSettings? = nil
    ) -> (RequestLifecycle, RequestLifecycle.Action) {
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route()], digest: "d"))
        var request = HTTPRequest(method: method, target: "/users", versionMinor: minor)
        request.headers = headers
        return RequestLifecycle.begin(
            request, rules: rules, draining: false, settings: settings ?? self.settings(), now: 0)
    }

    private let stream = NameValue(name: "Accept", value: "text/event-stream")
    private let token = NameValue(name: "Authorization", value: "Bearer secret-token")

    func testAStreamRequestSubscribesWithTheFetchAPlainGetWouldMake() throws {
        let (lifecycle, action) = begin(headers: [stream, token])
        guard case .subscribe(let subscription) = action else { return XCTFail("not a subscription: \(action)") }
        XCTAssertEqual(lifecycle.stateName, "subscribed")
        XCTAssertTrue(subscription.request.url.hasSuffix("/users.json"), subscription.request.url)
        XCTAssertTrue(subscription.request.headers.contains(token), "forwarded headers go upstream as on a GET")
        XCTAssertTrue(subscription.streamKey.contains("secret-token"), "another credential is another stream")
        XCTAssertEqual(subscription.policy.maxSubscribers, 10)
    }

    func testWithoutTheAcceptOrOverHeadOrHTTP10ItIsAPlainRequest() {
        for (method, headers, minor) in [("GET", [token], 1), ("HEAD", [stream], 1), ("GET", [stream], 0)] {
            let (lifecycle, action) = begin(method, headers: headers, minor: minor)
            guard case .fetch = action else { return XCTFail("\(method) \(headers) 1.\(minor): \(action)") }
            XCTAssertEqual(lifecycle.stateName, "exchanging")
        }
    }

    func testARefusedSubscriptionIsA503() {
        let (lifecycle, _) = begin(headers: [stream])
        guard case .respond(let response, _) = lifecycle.subscriptionRefused() else { return XCTFail() }
        XCTAssertEqual(response.status, 503)
        XCTAssertTrue(response.body.text.contains(#""code":"too-many-subscribers""#), response.body.text)
        XCTAssertEqual(lifecycle.stateName, "responding")
    }

    func testTheSubscriptionEndsWithOneAccessLogLine() throws {
        let (lifecycle, _) = begin(headers: [stream, token], settings: settings(accessLog: true))
        let action = lifecycle.subscriptionEnded(
            eventsSent: 7, bytesSent: 900, errorCode: "slow-consumer", now: 2, wallClockMilliseconds: 1)
        guard case .unsubscribe(let finished) = action else { return XCTFail("it leaves its stream: \(action)") }
        XCTAssertEqual(finished.outcome, .answered(status: 200, seconds: 2))
        let line = try XCTUnwrap(finished.accessLogLine)
        let text = line.text
        XCTAssertTrue(text.contains(#""live_events":7"#), text)
        XCTAssertTrue(text.contains(#""error":"slow-consumer""#), text)
        XCTAssertTrue(text.contains(#""duration_ms":2000.000"#), text)
        XCTAssertFalse(text.contains("secret-token"))
        XCTAssertEqual(lifecycle.stateName, "answered")
    }

    func testAPlainGetAsksForTheStreamsAnswerAndIsAnsweredFromIt() throws {
        let (lifecycle, action) = begin(headers: [token], settings: settings(accessLog: true, servesLive: true))
        guard case .lookUpLive(let route) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(route, "users")
        let key = try XCTUnwrap(lifecycle.liveStreamKey())
        XCTAssertTrue(key.contains("secret-token"), "the key of the stream a subscription would share")
        XCTAssertEqual(lifecycle.stateName, "awaitingLiveAnswer")
        let answer = JSON.array([.number(JSONNumber(1))])
        guard case .respond(let response, _) = lifecycle.liveLookupFinished(answer, now: 0) else { return XCTFail() }
        XCTAssertEqual(response.body.text, "[1]")
        XCTAssertEqual(response.header("Reshape-Cache"), "live")
        XCTAssertEqual(lifecycle.stateName, "responding")
        let line = lifecycle.answered(response, now: 0, wallClockMilliseconds: 0).accessLogLine?.text ?? ""
        XCTAssertFalse(line.contains("secret-token"), line)
    }

    func testAPlainGetWithoutAStreamOpenIsFetched() {
        let (lifecycle, _) = begin(headers: [], settings: settings(servesLive: true))
        guard case .fetch = lifecycle.liveLookupFinished(nil, now: 0) else { return XCTFail() }
        XCTAssertEqual(lifecycle.stateName, "exchanging")
    }
}
