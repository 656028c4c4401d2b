import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// `FetchAdmission`: every transition of one upstream's places and queue; the impossible
/// events in a child process (DeathTest.swift).
final class FetchAdmissionTests: XCTestCase {
    typealias Admission = FetchAdmission<String>

    static let two = FetchAdmissionRule(maxInFlight: 2, queue: UpstreamQueueRule(size: 2, timeoutMilliseconds: 1500))
    private let two = FetchAdmissionTests.two

    /// The waiter a `wake` names, or nil for any other action.
    private func woken(_ action: Admission.Action) -> String? {
        if case .wake(let queued) = action { queued.waiter } else { nil }
    }

    private func ticket(_ action: Admission.Action) throws -> Int {
        guard case .wait(let ticket) = action else { throw XCTSkip("expected wait, got \(action)") }
        return ticket
    }

    private func isStart(_ action: Admission.Action) -> Bool { if case .start = action { true } else { false } }
    private func isNone(_ action: Admission.Action) -> Bool { if case .none = action { true } else { false } }
    private func refusal(_ action: Admission.Action) -> (Admission.Refusal, Int)? {
        if case .refuse(let refusal, let seconds) = action { (refusal, seconds) } else { nil }
    }

    /// Two fetches holding both places, nobody waiting.
    static func full() -> Admission {
        var admission = Admission()
        _ = admission.arrive("a", rule: two)
        _ = admission.arrive("b", rule: two)
        return admission
    }

    func testFetchesStartAtOnceUpToTheLimit() {
        var admission = Admission()
        XCTAssertEqual(admission.stateName, .admitting)
        XCTAssertTrue(isStart(admission.arrive("a", rule: two)))
        XCTAssertEqual(admission.stateName, .admitting)
        XCTAssertTrue(isStart(admission.arrive("b", rule: two)))
        XCTAssertEqual(admission.stateName, .saturated)
        XCTAssertEqual(admission.inFlight, 2)
        XCTAssertEqual(admission.queueLength, 0)
    }

    func testBeyondTheLimitFetchesWaitInOrderAndEachFreedPlaceGoesToTheFirst() throws {
        var admission = Self.full()
        let c = try ticket(admission.arrive("c", rule: two))
        let d = try ticket(admission.arrive("d", rule: two))
        XCTAssertLessThan(c, d)
        XCTAssertEqual(admission.queueLength, 2)
        XCTAssertEqual(woken(admission.finished(rule: two)), "c")
        XCTAssertEqual(admission.inFlight, 2, "the place passed on, not freed")
        XCTAssertEqual(woken(admission.finished(rule: two)), "d")
        XCTAssertEqual(admission.queueLength, 0)
        XCTAssertEqual(admission.stateName, .saturated)
        XCTAssertTrue(isNone(admission.finished(rule: two)))
        XCTAssertEqual(admission.stateName, .admitting)
        XCTAssertEqual(admission.inFlight, 1)
        XCTAssertTrue(isNone(admission.finished(rule: two)))
        XCTAssertEqual(admission.inFlight, 0)
    }

    func testAFullQueueRefusesWithTheQueueTimeoutAsRetryAfter() throws {
        var admission = Self.full()
        _ = try ticket(admission.arrive("c", rule: two))
        _ = try ticket(admission.arrive("d", rule: two))
        let refused = try XCTUnwrap(refusal(admission.arrive("e", rule: two)))
        XCTAssertEqual(refused.0, .queueFull)
        XCTAssertEqual(refused.1, 2, "1.5 s rounds up")
        XCTAssertEqual(admission.queueLength, 2)
    }

    func testWithoutAQueueAFetchBeyondTheLimitIsRefusedAtOnce() throws {
        let rule = FetchAdmissionRule(maxInFlight: 1, queue: nil)
        var admission = Admission()
        XCTAssertTrue(isStart(admission.arrive("a", rule: rule)))
        let refused = try XCTUnwrap(refusal(admission.arrive("b", rule: rule)))
        XCTAssertEqual(refused.0, .noQueue)
        XCTAssertEqual(refused.1, 1)
    }

    func testAWaiterTimingOutIsRefusedAndLeavesTheQueue() throws {
        var admission = Self.full()
        let c = try ticket(admission.arrive("c", rule: two))
        _ = try ticket(admission.arrive("d", rule: two))
        XCTAssertEqual(refusal(admission.timedOut(ticket: c, rule: two))?.0, .timedOut)
        XCTAssertEqual(admission.queueLength, 1)
        XCTAssertEqual(woken(admission.finished(rule: two)), "d")
    }

    func testATimeoutAfterTheWakeIsNothing() throws {
        // The place was handed over on another loop; the wake is on its way, so it starts.
        var admission = Self.full()
        let c = try ticket(admission.arrive("c", rule: two))
        XCTAssertEqual(woken(admission.finished(rule: two)), "c")
        XCTAssertTrue(isNone(admission.timedOut(ticket: c, rule: two)))
        XCTAssertEqual(admission.inFlight, 2)
    }

    func testAWaiterLeavingFreesItsPlaceInTheQueue() throws {
        var admission = Self.full()
        let c = try ticket(admission.arrive("c", rule: two))
        _ = try ticket(admission.arrive("d", rule: two))
        XCTAssertTrue(isNone(admission.left(ticket: c, rule: two)))
        XCTAssertEqual(admission.queueLength, 1)
        XCTAssertEqual(try ticket(admission.arrive("e", rule: two)) > 0, true, "its place in the queue is free")
        XCTAssertEqual(woken(admission.finished(rule: two)), "d")
        XCTAssertEqual(woken(admission.finished(rule: two)), "e")
    }

    func testAWaiterLeavingAfterItsWakePassesThePlaceOn() throws {
        var admission = Self.full()
        let c = try ticket(admission.arrive("c", rule: two))
        _ = try ticket(admission.arrive("d", rule: two))
        XCTAssertEqual(woken(admission.finished(rule: two)), "c")
        XCTAssertEqual(woken(admission.left(ticket: c, rule: two)), "d")
        XCTAssertEqual(admission.inFlight, 2)
        XCTAssertTrue(isNone(admission.finished(rule: two)))
        XCTAssertTrue(isNone(admission.left(ticket: 99, rule: two)), "a woken ticket leaving is a finish")
        XCTAssertEqual(admission.inFlight, 0)
        XCTAssertEqual(admission.stateName, .admitting)
    }

    func testALoweredLimitHoldsNewFetchesUntilBelowIt() throws {
        var admission = Self.full()
        let one = FetchAdmissionRule(maxInFlight: 1, queue: two.queue)
        // Admitting with one in flight, then the limit drops to one.
        XCTAssertTrue(isNone(admission.finished(rule: two)))
        XCTAssertTrue(isStart(admission.arrive("b", rule: two)))
        XCTAssertTrue(isNone(admission.finished(rule: two)))
        XCTAssertEqual(admission.stateName, .admitting)
        _ = try ticket(admission.arrive("c", rule: FetchAdmissionRule(maxInFlight: 1, queue: two.queue)))
        XCTAssertEqual(admission.stateName, .saturated)
        XCTAssertEqual(woken(admission.finished(rule: one)), "c")
        // Two held under a limit of one: a finish frees a place without waking.
        var over = Self.full()
        _ = try ticket(over.arrive("c", rule: one))
        XCTAssertTrue(isNone(over.finished(rule: one)))
        XCTAssertEqual(over.inFlight, 1)
        XCTAssertEqual(woken(over.finished(rule: one)), "c")
    }

    func testARaisedLimitStartsNewFetchesAtOnce() {
        var admission = Self.full()
        XCTAssertTrue(isStart(admission.arrive("c", rule: FetchAdmissionRule(maxInFlight: 4, queue: nil))))
        XCTAssertEqual(admission.stateName, .admitting)
        XCTAssertEqual(admission.inFlight, 3)
    }

    func testTheStateNamesAreBoth() {
        XCTAssertEqual(Admission.StateName.allCases.map(\.rawValue), ["admitting", "saturated"])
    }

    // MARK: - Impossible events

    func testAFinishWithNothingInFlightTraps() throws {
        try expectTrap(containing: "impossible event 'finished' in state 'admitting with none in flight'") {
            var admission = Admission()
            _ = admission.finished(rule: two)
        }
    }

    func testAFinishWhenSaturatedWithNothingInFlightTraps() throws {
        try expectTrap(containing: "impossible event 'finished' in state 'saturated with none in flight'") {
            // A place given back once too often, while one waits under a limit a reload dropped.
            var admission = Admission()
            let one = FetchAdmissionRule(maxInFlight: 1, queue: UpstreamQueueRule(size: 1, timeoutMilliseconds: 100))
            _ = admission.arrive("a", rule: one)
            _ = admission.arrive("b", rule: one)
            _ = admission.finished(rule: FetchAdmissionRule(maxInFlight: 0, queue: one.queue))
            _ = admission.finished(rule: one)
        }
    }
}
