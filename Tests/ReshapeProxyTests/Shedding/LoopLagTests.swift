import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// When a worker sheds: its lag timer running later than the bound, until a tick on time.
final class LoopLagTests: XCTestCase {
    func testALateTickStartsSheddingAndATimelyOneStopsIt() {
        var lag = LoopLag(maxLagSeconds: 0.2)
        XCTAssertEqual(lag.intervalSeconds, 0.05, accuracy: 1e-9)
        XCTAssertFalse(lag.ticked(due: 1.0, now: 1.01))
        XCTAssertFalse(lag.shedding)
        XCTAssertTrue(lag.ticked(due: 1.05, now: 1.35), "ran 300 ms late: shedding starts")
        XCTAssertTrue(lag.shedding)
        XCTAssertEqual(lag.lastLagSeconds, 0.3, accuracy: 1e-9)
        XCTAssertFalse(lag.ticked(due: 1.40, now: 1.70), "still late: no change")
        XCTAssertTrue(lag.ticked(due: 1.75, now: 1.76), "on time again: shedding stops")
        XCTAssertFalse(lag.shedding)
    }

    func testTheIntervalIsAQuarterOfTheBoundWithinFiveAndAHundredMilliseconds() {
        XCTAssertEqual(LoopLag(maxLagSeconds: 0.01).intervalSeconds, 0.005, accuracy: 1e-9)
        XCTAssertEqual(LoopLag(maxLagSeconds: 2).intervalSeconds, 0.1, accuracy: 1e-9)
    }

    func testASheddingWorkerAnswersRoutes503ButNotItsHealthEndpoints() {
        let route = Route(
            name: "users", method: "GET", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            pipeline: Pipeline(steps: []), location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        let rules = ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d"))
        let settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(),
            admin: { _ in HTTPResponse(status: 200) })
        let (shed, action) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users"), rules: rules, draining: false, shedding: true,
            settings: settings, now: 0)
        guard case .respond(let response, _) = action else { return XCTFail("\(action)") }
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.headers.first { $0.name == "Retry-After" }?.value, "1")
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains(#""code":"load-shed""#))
        XCTAssertEqual(shed.shedReason, "loop-lag")
        XCTAssertTrue(shed.fetchesInFlight.isEmpty)

        let (_, health) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/_reshape/live"), rules: rules, draining: false, shedding: true,
            settings: settings, now: 0)
        guard case .respond(let answer, _) = health else { return XCTFail("\(health)") }
        XCTAssertEqual(answer.status, 200)
    }
}
