import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// Every transition of `RouteExchange.State`, one fetch result at a time, and the events a
/// state cannot receive trapping (each death test runs this test binary again as a child).
final class RouteExchangeStateMachineTests: XCTestCase {
    private let location = SourceLocation(file: "t.yaml", line: 1, column: 1)

    /// Two fetches, the second optional.
    private var profile: Route {
        var route = Route(
            name: "profile", method: "GET", path: clientTemplate("/profile"),
            fetches: [
                FetchRule(name: "user", upstream: "api", path: upstreamTemplate("/user.json")),
                FetchRule(
                    name: "devices", upstream: "api", path: upstreamTemplate("/devices.json"),
                    optional: true),
            ],
            pipeline: Pipeline(steps: []), location: location)
        route.timeoutMilliseconds = 500
        return route
    }

    /// One fetch, then each post's author, one at a time.
    private var posts: Route {
        let expand = ExpandRule(
            key: "authorId",
            fetch: FetchRule(
                name: "author", upstream: "api",
                path: upstreamTemplate("/users/{value}.json")),
            member: "author", concurrency: 1)
        return Route(
            name: "posts", method: "GET", path: clientTemplate("/posts"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/posts.json"))],
            pipeline: Pipeline(steps: []), stages: [ExpandStage(expand: expand, then: Pipeline(steps: []))],
            location: location)
    }

    private func start(_ route: Route) -> (RouteExchange?, RouteExchange.Action) {
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d"))
        return RouteExchange.start(
            HTTPRequest(method: "GET", target: route.path.description), route: route,
            parameters: [:], rules: rules)
    }

    private func ok(_ json: String, status: Int = 200) -> UpstreamResult {
        .response(UpstreamResponse(status: status, contentType: "application/json", body: Array(json.utf8)))
    }

    private let twoPosts = #"[{"authorId":"a"},{"authorId":"b"}]"#

    /// The posts exchange with its first follow-up (id 1, for "a") in flight.
    private func expanding() throws -> RouteExchange {
        let exchange = try XCTUnwrap(start(posts).0)
        guard case .fetch(let orders) = exchange.fetchFinished(0, ok(twoPosts), seconds: 0) else {
            XCTFail("the posts ask for their authors")
            return exchange
        }
        XCTAssertEqual(orders.map(\.id), [1])
        XCTAssertEqual(exchange.stateName, "expanding")
        return exchange
    }

    // MARK: - Transitions

    func testStartFetchesEveryPrimaryByItsIndexOrRefuses() throws {
        let (exchange, action) = start(profile)
        guard case .fetch(let orders) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(orders.map(\.id), [0, 1])
        XCTAssertEqual(exchange?.stateName, "fetchingPrimaries")
        XCTAssertEqual(exchange?.inFlightIDs, [0, 1])
        var unknown = profile
        unknown.fetches[0] = FetchRule(name: "user", upstream: "gone", path: upstreamTemplate("/user.json"))
        let (none, refused) = start(unknown)
        XCTAssertNil(none)
        guard case .respond(let rendered, cancel: []) = refused else { return XCTFail("\(refused)") }
        XCTAssertEqual(rendered.response.status, 500)
    }

    func testFetchingPrimariesWaitsForEveryOneThenAnswers() throws {
        let exchange = try XCTUnwrap(start(profile).0)
        guard case .wait = exchange.fetchFinished(1, ok("[]"), seconds: 0) else { return XCTFail() }
        XCTAssertEqual(exchange.stateName, "fetchingPrimaries")
        XCTAssertEqual(exchange.inFlightIDs, [0])
        XCTAssertEqual(exchange.fetchRule(of: 0)?.upstream, "api")
        XCTAssertNil(exchange.fetchRule(of: 1)?.upstream, "a fetch that is in has no upstream in flight")
        guard case .respond(let rendered, cancel: []) = exchange.fetchFinished(0, ok("{}"), seconds: 0) else {
            return XCTFail()
        }
        XCTAssertEqual(rendered.response.status, 200)
        XCTAssertEqual(exchange.stateName, "finished")
        XCTAssertEqual(exchange.inFlightIDs, [])
        XCTAssertEqual(exchange.fetchCount, 2)
    }

    func testAFailedPrimaryFinishesAndCancelsTheOthers() throws {
        let exchange = try XCTUnwrap(start(profile).0)
        guard
            case .respond(let rendered, cancel: [FetchCancel(id: 1)]) = exchange.fetchFinished(
                0, .failure(.connect, message: "no"),
                seconds: 0)
        else { return XCTFail() }
        XCTAssertEqual(rendered.errorCode, "fetch-failed")
        XCTAssertEqual(exchange.stateName, "finished")
    }

    func testTheTimeoutFinishesAnyPhase() throws {
        let primaries = try XCTUnwrap(start(profile).0)
        guard case .respond(let rendered, let cancel) = primaries.timedOut() else { return XCTFail() }
        XCTAssertEqual(cancel.map(\.id), [0, 1])
        XCTAssertEqual(rendered.errorCode, "route-timeout")
        XCTAssertEqual(primaries.stateName, "finished")
        let followUps = try expanding()
        guard case .respond(_, cancel: [FetchCancel(id: 1, countsAsTimeout: true)]) = followUps.timedOut() else {
            return XCTFail()
        }
        XCTAssertEqual(followUps.stateName, "finished")
    }

    /// One slow request must not open a circuit every other request would be refused by: its
    /// timeout counts once against each upstream, however many of its fetches it cut off.
    func testATimeoutCountsOnceAgainstEachUpstream() throws {
        var route = profile
        route.fetches.append(FetchRule(name: "badges", upstream: "people", path: upstreamTemplate("/badges.json")))
        let rules = ServingRules(
            RuleSet(upstreams: ["api": makeUpstream(), "people": makeUpstream()], routes: [route], digest: "d"))
        let exchange = try XCTUnwrap(
            RouteExchange.start(
                HTTPRequest(method: "GET", target: "/profile"), route: route, parameters: [:], rules: rules
            )
            .0)
        guard case .respond(_, let cancel) = exchange.timedOut() else { return XCTFail() }
        XCTAssertEqual(
            cancel,
            [
                FetchCancel(id: 0, countsAsTimeout: true), FetchCancel(id: 1, countsAsTimeout: false),
                FetchCancel(id: 2, countsAsTimeout: true),
            ])
    }

    /// A failure that settles the answer early stops the others without counting against their circuits.
    func testAnEarlyAnswerCancelsWithoutCountingATimeout() throws {
        let exchange = try XCTUnwrap(start(profile).0)
        guard case .respond(_, let cancel) = exchange.fetchFinished(0, .failure(.connect, message: "no"), seconds: 0)
        else { return XCTFail() }
        XCTAssertEqual(cancel, [FetchCancel(id: 1, countsAsTimeout: false)])
    }

    func testExpandingFetchesWithinItsBoundThenAnswers() throws {
        let exchange = try expanding()
        XCTAssertEqual(exchange.fetchRule(of: 1)?.upstream, "api")
        guard case .fetch(let next) = exchange.fetchFinished(1, ok(#"{"n":"A"}"#), seconds: 0) else { return XCTFail() }
        XCTAssertEqual(next.map(\.id), [2], "the next author once the first is in: concurrency 1")
        XCTAssertEqual(exchange.stateName, "expanding")
        guard case .respond(let rendered, cancel: []) = exchange.fetchFinished(2, ok("null"), seconds: 0) else {
            return XCTFail()
        }
        XCTAssertEqual(
            rendered.response.body.text,
            #"[{"authorId":"a","author":{"n":"A"}},{"authorId":"b","author":null}]"#)
        XCTAssertEqual(exchange.stateName, "finished")
    }

    func testAFailedFollowUpFinishes() throws {
        let exchange = try expanding()
        let action = exchange.fetchFinished(1, ok("{}", status: 500), seconds: 0)
        guard case .respond(let rendered, cancel: []) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(rendered.errorCode, "fetch-failed")
        XCTAssertEqual(exchange.stateName, "finished")
    }

    func testEveryStateHasADistinctName() {
        XCTAssertEqual(RouteExchange.StateName.allCases.count, 3, "a new state needs its name here and in the diagram")
    }

    // MARK: - Impossible events

    func testAPrimaryReportedTwiceTraps() throws {
        let exchange = try XCTUnwrap(start(profile).0)
        _ = exchange.fetchFinished(1, ok("[]"), seconds: 0)
        try expectTrap(containing: "in state 'fetchingPrimaries'") {
            _ = exchange.fetchFinished(1, self.ok("[]"), seconds: 0)
        }
    }

    func testAFollowUpNotInFlightTraps() throws {
        let exchange = try expanding()
        try expectTrap(containing: "in state 'expanding'") { _ = exchange.fetchFinished(7, self.ok("{}"), seconds: 0) }
    }

    func testAFetchAfterTheAnswerTraps() throws {
        let exchange = try XCTUnwrap(start(profile).0)
        _ = exchange.timedOut()
        try expectTrap(containing: "impossible event 'fetchFinished' in state 'finished'") {
            _ = exchange.fetchFinished(0, self.ok("{}"), seconds: 0)
        }
    }

    func testATimeoutAfterTheAnswerTraps() throws {
        let exchange = try XCTUnwrap(start(profile).0)
        _ = exchange.timedOut()
        try expectTrap(containing: "impossible event 'timedOut' in state 'finished'") { _ = exchange.timedOut() }
    }
}
