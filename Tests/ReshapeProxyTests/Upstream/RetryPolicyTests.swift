import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// Which failed attempts are tried again, when, and within what time; and the retry budget.
final class RetryPolicyTests: XCTestCase {
    private let rule = RetryRule(
        attempts: 2, onReset: true, onConnectFailure: true, statuses: [502, 503, 504], budgetPercent: 20)

    private func decide(
        _ end: AttemptEnd, retryable: Bool = true, retries: Int = 0, took: Int = 5, left: Int = 1000,
        rule: RetryRule? = nil
    ) -> RetryPolicy.Decision {
        RetryPolicy.decide(
            rule: rule ?? self.rule, retryable: retryable, retriesDone: retries, end: end, attemptMilliseconds: took,
            timeLeftMilliseconds: left)
    }

    func testResetsConnectFailuresAndListedStatusesAreRetriedAtOnce() {
        XCTAssertEqual(decide(.reset), .retry(.reset, delayMilliseconds: 0, timeoutMilliseconds: 1000))
        XCTAssertEqual(
            decide(.connectFailure), .retry(.connectFailure, delayMilliseconds: 0, timeoutMilliseconds: 1000))
        XCTAssertEqual(
            decide(.answered(status: 503, retryAfter: nil)),
            .retry(.status(503), delayMilliseconds: 0, timeoutMilliseconds: 1000))
        XCTAssertEqual(RetryReason.status(503).label, "503")
        XCTAssertEqual(RetryReason.connectFailure.label, "connect-failure")
    }

    func testOtherEndsAreNeverRetried() {
        for end: AttemptEnd in [
            .answered(status: 200, retryAfter: nil), .answered(status: 500, retryAfter: nil), .timeout,
            .transportFailure, .otherFailure,
        ] {
            XCTAssertEqual(decide(end), .giveUp, "\(end)")
        }
        let standard = RetryRule.standard
        XCTAssertEqual(decide(.answered(status: 503, retryAfter: nil), rule: standard), .giveUp)
        XCTAssertEqual(decide(.reset, rule: standard), .retry(.reset, delayMilliseconds: 0, timeoutMilliseconds: 1000))
    }

    func testOnlyRetryableFetchesAndOnlyAttemptsTimes() {
        XCTAssertEqual(decide(.reset, retryable: false), .giveUp)
        XCTAssertNotEqual(decide(.reset, retries: 1), .giveUp)
        XCTAssertEqual(decide(.reset, retries: 2), .giveUp)
        XCTAssertEqual(
            decide(
                .reset,
                rule: RetryRule(attempts: 0, onReset: true, onConnectFailure: true, statuses: [], budgetPercent: 20)),
            .giveUp)
    }

    func testRetryAfterIsWaitedForOnlyWhenItFitsInTheTimeLeft() {
        XCTAssertEqual(
            decide(.answered(status: 503, retryAfter: "1"), left: 3000),
            .retry(.status(503), delayMilliseconds: 1000, timeoutMilliseconds: 2000))
        XCTAssertEqual(decide(.answered(status: 503, retryAfter: "7"), left: 3000), .giveUp)
        XCTAssertEqual(decide(.answered(status: 503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT")), .giveUp)
    }

    func testNoRetryWhenLessTimeIsLeftThanTheFailedTryTookOrTheFloor() {
        XCTAssertEqual(decide(.reset, took: 300, left: 299), .giveUp)
        XCTAssertNotEqual(decide(.reset, took: 300, left: 300), .giveUp)
        XCTAssertEqual(decide(.reset, took: 1, left: RetryPolicy.minimumTimeLeftMilliseconds - 1), .giveUp)
    }

    func testTheBudgetAllowsAShareOfRecentRequestsWithASmallMinimum() {
        var budget = RetryBudget()
        budget.requested(now: 0)
        // A lone request may still retry: the minimum.
        for _ in 0..<RetryBudget.minimumRetries { XCTAssertTrue(budget.allowRetry(percent: 20, now: 0.5)) }
        XCTAssertFalse(budget.allowRetry(percent: 20, now: 0.5))
        for _ in 0..<19 { budget.requested(now: 1) }  // 20 requests: 20% is 4
        XCTAssertTrue(budget.allowRetry(percent: 20, now: 1))
        XCTAssertFalse(budget.allowRetry(percent: 20, now: 1))
    }

    func testTheBudgetWindowSlides() {
        var budget = RetryBudget()
        budget.requested(now: 0)
        for _ in 0..<3 { _ = budget.allowRetry(percent: 20, now: 0) }
        XCTAssertFalse(budget.allowRetry(percent: 20, now: 9.9))
        XCTAssertTrue(
            budget.allowRetry(percent: 20, now: Double(RetryBudget.windowSeconds)), "the old retries aged out")
    }
}
