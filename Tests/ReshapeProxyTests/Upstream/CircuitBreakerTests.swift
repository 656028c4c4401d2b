import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// Every transition of `CircuitBreaker`, with times passed in; the impossible ones in a child
/// process (DeathTest.swift).
final class CircuitBreakerTests: XCTestCase {
    private let rule = CircuitRule(failures: 3, openForMilliseconds: 10_000)

    private func opened(at now: Double = 100) -> CircuitBreaker {
        var breaker = CircuitBreaker()
        for _ in 0..<3 { _ = breaker.finished(failed: true, wasProbe: false, rule: rule, now: now) }
        return breaker
    }

    func testConsecutiveFailuresOpenItAndAnAnswerInBetweenStartsTheCountAgain() {
        var breaker = CircuitBreaker()
        XCTAssertEqual(breaker.admit(now: 0), .proceed)
        XCTAssertEqual(breaker.finished(failed: true, wasProbe: false, rule: rule, now: 1), .unchanged)
        XCTAssertEqual(breaker.finished(failed: true, wasProbe: false, rule: rule, now: 1), .unchanged)
        XCTAssertEqual(breaker.state, .closed(failures: 2))
        XCTAssertEqual(breaker.finished(failed: false, wasProbe: false, rule: rule, now: 1), .unchanged)
        XCTAssertEqual(breaker.state, .closed(failures: 0))
        for _ in 0..<2 { _ = breaker.finished(failed: true, wasProbe: false, rule: rule, now: 2) }
        XCTAssertEqual(breaker.finished(failed: true, wasProbe: false, rule: rule, now: 2), .opened)
        XCTAssertEqual(breaker.state, .open(until: 12))
        XCTAssertEqual(breaker.gaugeValue, 1)
    }

    func testWhileOpenFetchesAreRefusedWithTheSecondsUntilTheProbeRoundedUp() {
        var breaker = opened(at: 100)
        XCTAssertEqual(breaker.admit(now: 100), .reject(retryAfterSeconds: 10))
        XCTAssertEqual(breaker.admit(now: 108.2), .reject(retryAfterSeconds: 2))
        XCTAssertEqual(breaker.admit(now: 109.99), .reject(retryAfterSeconds: 1))
        // Late results of fetches admitted before it opened change nothing.
        XCTAssertEqual(breaker.finished(failed: false, wasProbe: false, rule: rule, now: 105), .unchanged)
        XCTAssertEqual(breaker.state, .open(until: 110))
    }

    func testAfterOpenForOneProbeGoesAndOthersWaitForIt() {
        var breaker = opened(at: 100)
        XCTAssertEqual(breaker.admit(now: 110), .probe)
        XCTAssertEqual(breaker.state, .halfOpen(probeInFlight: true))
        XCTAssertEqual(breaker.gaugeValue, 2)
        XCTAssertEqual(breaker.admit(now: 110.5), .reject(retryAfterSeconds: 1))
        // A fetch from before, ending now, is not the probe.
        XCTAssertEqual(breaker.finished(failed: true, wasProbe: false, rule: rule, now: 111), .unchanged)
        XCTAssertEqual(breaker.state, .halfOpen(probeInFlight: true))
    }

    func testAProbeThatSucceedsClosesIt() {
        var breaker = opened(at: 100)
        _ = breaker.admit(now: 110)
        XCTAssertEqual(breaker.finished(failed: false, wasProbe: true, rule: rule, now: 111), .closed)
        XCTAssertEqual(breaker.state, .closed(failures: 0))
        XCTAssertEqual(breaker.admit(now: 111), .proceed)
    }

    func testAProbeThatFailsOpensItAgainForOpenFor() {
        var breaker = opened(at: 100)
        _ = breaker.admit(now: 110)
        XCTAssertEqual(breaker.finished(failed: true, wasProbe: true, rule: rule, now: 111), .opened)
        XCTAssertEqual(breaker.state, .open(until: 121))
    }

    func testACancelledProbeLetsTheNextFetchProbe() {
        var breaker = opened(at: 100)
        _ = breaker.admit(now: 110)
        breaker.probeCancelled()
        XCTAssertEqual(breaker.state, .halfOpen(probeInFlight: false))
        XCTAssertEqual(breaker.admit(now: 110.1), .probe)
    }

    func testAProbeResultWhileClosedTraps() throws {
        try expectTrap(containing: "impossible event 'probe finished' in state 'closed'") {
            var breaker = CircuitBreaker()
            _ = breaker.finished(failed: true, wasProbe: true, rule: rule, now: 0)
        }
    }

    func testAProbeResultWhileOpenTraps() throws {
        try expectTrap(containing: "impossible event 'probe finished' in state 'open'") {
            var breaker = opened()
            _ = breaker.finished(failed: true, wasProbe: true, rule: rule, now: 101)
        }
    }

    func testCancellingAProbeThatIsNotInFlightTraps() throws {
        try expectTrap(containing: "impossible event 'probeCancelled'") {
            var breaker = CircuitBreaker()
            breaker.probeCancelled()
        }
    }
}
