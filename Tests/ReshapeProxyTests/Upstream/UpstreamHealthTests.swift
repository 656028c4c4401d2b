import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// One fetch's steps through `UpstreamHealth`: retries within the fetch's time and the budget,
/// circuit admission and what reaches the circuit; and the idle pool's bookkeeping.
final class UpstreamHealthTests: XCTestCase {
    private func request(
        method: String = "GET", timeout: Int = 1000, circuit: CircuitRule? = nil, retry: RetryRule = .standard
    ) -> UpstreamRequest {
        var request = UpstreamRequest(
            method: method, url: "http://u/x", headers: [], body: nil, timeoutMilliseconds: timeout,
            connectTimeoutMilliseconds: timeout, maxBodyBytes: 1, upstreamName: "u")
        request.retryable = method == "GET"
        request.circuit = circuit
        request.retry = retry
        return request
    }

    func testAResetGetIsRetriedOnceThenGivenOver() {
        var health = UpstreamHealth()
        var fetch = UpstreamHealth.Fetch(request(), now: 0)
        XCTAssertEqual(health.begin(&fetch, now: 0), .attempt(timeoutMilliseconds: 1000))
        XCTAssertEqual(health.attemptEnded(&fetch, .reset, now: 0.1), .retryLater(.reset, delayMilliseconds: 0))
        XCTAssertEqual(health.retryDue(&fetch, now: 0.1), .attempt(timeoutMilliseconds: 900))
        XCTAssertEqual(health.attemptEnded(&fetch, .reset, now: 0.2), .finish)
    }

    func testAPostIsNeverRetried() {
        var health = UpstreamHealth()
        var fetch = UpstreamHealth.Fetch(request(method: "POST"), now: 0)
        _ = health.begin(&fetch, now: 0)
        XCTAssertEqual(health.attemptEnded(&fetch, .reset, now: 0.1), .finish)
    }

    func testARetryDueTooLateGivesTheLastResultOver() {
        var health = UpstreamHealth()
        let retry = RetryRule(attempts: 1, onReset: true, onConnectFailure: true, statuses: [503], budgetPercent: 20)
        var fetch = UpstreamHealth.Fetch(request(retry: retry), now: 0)
        _ = health.begin(&fetch, now: 0)
        XCTAssertEqual(
            health.attemptEnded(&fetch, .answered(status: 503, retryAfter: "0"), now: 0.1),
            .retryLater(.status(503), delayMilliseconds: 0))
        XCTAssertEqual(health.retryDue(&fetch, now: 0.99), .finish)
    }

    func testTransportFailuresOpenTheCircuitAndAProbeClosesIt() {
        var health = UpstreamHealth()
        let circuit = CircuitRule(failures: 2, openForMilliseconds: 5000)
        for _ in 0..<2 {
            var fetch = UpstreamHealth.Fetch(request(circuit: circuit), now: 0)
            _ = health.begin(&fetch, now: 0)
            XCTAssertEqual(health.attemptEnded(&fetch, .timeout, now: 1), .finish)
        }
        XCTAssertEqual(health.circuitStates, ["u": 1])
        var refused = UpstreamHealth.Fetch(request(circuit: circuit), now: 2)
        XCTAssertEqual(health.begin(&refused, now: 2), .reject(retryAfterSeconds: 4))
        var probe = UpstreamHealth.Fetch(request(circuit: circuit), now: 6)
        XCTAssertEqual(health.begin(&probe, now: 6), .attempt(timeoutMilliseconds: 1000))
        XCTAssertEqual(health.circuitStates, ["u": 2])
        _ = health.attemptEnded(&probe, .answered(status: 200, retryAfter: nil), now: 6.1)
        XCTAssertEqual(health.circuitStates, ["u": 0])
    }

    func testARouteTimeoutCountsAgainstTheCircuitAndACancelledProbeDoesNotDecide() {
        var health = UpstreamHealth()
        let circuit = CircuitRule(failures: 1, openForMilliseconds: 1000)
        var fetch = UpstreamHealth.Fetch(request(circuit: circuit), now: 0)
        _ = health.begin(&fetch, now: 0)
        health.cancelled(&fetch, timedOut: true, now: 0.5)
        XCTAssertEqual(health.circuitState("u"), .open(until: 1.5))
        var probe = UpstreamHealth.Fetch(request(circuit: circuit), now: 2)
        _ = health.begin(&probe, now: 2)
        health.cancelled(&probe, timedOut: false, now: 2.1)
        XCTAssertEqual(health.circuitState("u"), .halfOpen(probeInFlight: false))
    }

    func testTheIdlePoolClosesThoseIdleTooLongThenTheLeastRecentlyUsedBeyondMaxIdle() {
        var pool = IdleConnections()
        pool.rule(IdlePoolRule(maxIdle: 2, idleTimeoutMilliseconds: 3000), for: "u")
        pool.rule(IdlePoolRule(maxIdle: 1, idleTimeoutMilliseconds: 60_000), for: "v")
        for socket: Int32 in 10...14 { pool.opened(socket, upstream: "u") }
        pool.opened(20, upstream: "v")
        for (socket, time) in [(10, 1.0), (11, 2.0), (12, 3.0), (13, 3.5)] { pool.idle(Int32(socket), now: time) }
        pool.inUse(11)
        pool.idle(20, now: 1)
        XCTAssertEqual(pool.idleCount("u"), 3)
        XCTAssertEqual(pool.sweep(now: 3.9), [10], "u keeps its two most recently used; v is within its cap")
        XCTAssertEqual(pool.sweep(now: 6.2), [12])
        XCTAssertEqual(pool.idleCount, 2)
        pool.forget(13)
        pool.forget(20)
        XCTAssertEqual(pool.idleCount, 0)
        XCTAssertEqual(pool.sweep(now: 100), [])
    }
}
