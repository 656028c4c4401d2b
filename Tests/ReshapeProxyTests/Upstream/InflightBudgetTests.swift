import XCTest

@testable import ReshapeProxy

/// `InflightBudget`: the memory budget's reservations, its FIFO of waiters and what wakes
/// them; the impossible event in a child process (DeathTest.swift). Also `RecentSizes`.
final class InflightBudgetTests: XCTestCase {
    typealias Budget = InflightBudget<String>

    private func isStart(_ action: Budget.Action) -> Bool { if case .start = action { true } else { false } }
    private func isNone(_ action: Budget.Action) -> Bool { if case .none = action { true } else { false } }
    private func woken(_ action: Budget.Action) -> [String]? {
        if case .wake(let queued) = action { queued.map(\.waiter) } else { nil }
    }
    private func ticket(_ action: Budget.Action) throws -> Int {
        guard case .wait(let ticket) = action else { throw XCTSkip("expected wait, got \(action)") }
        return ticket
    }

    func testFetchesThatFitStartAndTheirBytesComeBack() {
        var budget = Budget(limit: 100)
        XCTAssertTrue(isStart(budget.reserve(60, "a")))
        XCTAssertTrue(isStart(budget.reserve(40, "b")))
        XCTAssertEqual(budget.used, 100)
        XCTAssertEqual(budget.stateName, .open)
        XCTAssertTrue(isNone(budget.changed(by: -60)))
        XCTAssertEqual(budget.used, 40)
    }

    func testAloneAFetchStartsWhateverItsSize() {
        var budget = Budget(limit: 100)
        XCTAssertTrue(isStart(budget.reserve(500, "huge")))
        XCTAssertEqual(budget.used, 500)
    }

    func testWaitersAreLetInInOrderAsRoomComesAndNobodyJumpsTheQueue() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(90, "a")
        _ = try ticket(budget.reserve(50, "b"))
        XCTAssertEqual(budget.stateName, .waiting)
        // Small enough to fit, but b waits first.
        _ = try ticket(budget.reserve(5, "c"))
        XCTAssertEqual(budget.waiting, 2)
        XCTAssertEqual(woken(budget.changed(by: -90)), ["b", "c"])
        XCTAssertEqual(budget.used, 55)
        XCTAssertEqual(budget.stateName, .open)
    }

    func testAContentLengthSmallerThanTheEstimateMakesRoom() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(90, "a")
        _ = try ticket(budget.reserve(50, "b"))
        XCTAssertTrue(isNone(budget.changed(by: 10)), "growing makes no room")
        XCTAssertEqual(woken(budget.changed(by: -60)), ["b"])
        XCTAssertEqual(budget.used, 90)
    }

    func testAWaiterTimingOutIsShedAndMayLetTheOnesBehindIn() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(60, "a")
        let big = try ticket(budget.reserve(80, "big"))
        _ = try ticket(budget.reserve(30, "small"))
        guard case .shed(let woken) = budget.timedOut(ticket: big) else { return XCTFail("not shed") }
        XCTAssertEqual(woken.map(\.waiter), ["small"])
        XCTAssertEqual(budget.used, 90)
        XCTAssertTrue(isNone(budget.timedOut(ticket: big)), "a ticket no longer queued: its wake is on the way")
    }

    func testAWaiterLeavingLeavesTheQueueOrGivesItsRoomBack() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(60, "a")
        let b = try ticket(budget.reserve(50, "b"))
        XCTAssertTrue(isNone(budget.left(ticket: b, bytes: 50)))
        XCTAssertEqual(budget.stateName, .open)
        let c = try ticket(budget.reserve(50, "c"))
        XCTAssertEqual(woken(budget.changed(by: -60)), ["c"])
        XCTAssertTrue(isNone(budget.left(ticket: c, bytes: 50)), "woken already: its bytes come back")
        XCTAssertEqual(budget.used, 0)
    }

    func testAGrowingTransferGoesOnWhileItFitsOrRunsAlone() {
        var budget = Budget(limit: 100)
        _ = budget.reserve(80, "a")
        XCTAssertTrue(isStart(budget.grow(by: 50, holding: 80, "a")), "alone it may grow past the budget")
        XCTAssertEqual(budget.used, 130)
        XCTAssertTrue(isNone(budget.changed(by: -130)))
        _ = budget.reserve(60, "a")
        _ = budget.reserve(10, "b")
        XCTAssertTrue(isStart(budget.grow(by: 30, holding: 60, "a")), "it fits")
        XCTAssertEqual(budget.used, 100)
    }

    func testAGrowingTransferThatWouldPassWaitsPausedAndIsWokenByRoom() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(60, "a")
        _ = budget.reserve(30, "b")
        _ = try ticket(budget.grow(by: 40, holding: 60, "a"))
        XCTAssertEqual(budget.stateName, .waiting)
        // A new fetch queues behind it.
        _ = try ticket(budget.reserve(5, "c"))
        XCTAssertEqual(woken(budget.changed(by: -30)), ["a"])
        XCTAssertEqual(budget.used, 100)
        XCTAssertEqual(budget.waiting, 1, "c does not fit yet")
    }

    func testWhenEveryHolderIsPausedTheFirstGoesOn() throws {
        // Nobody running would give room back: waiting could only deadlock.
        var budget = Budget(limit: 100)
        _ = budget.reserve(50, "a")
        _ = budget.reserve(50, "b")
        _ = try ticket(budget.grow(by: 30, holding: 50, "a"))
        // b is the last one running: nobody else would give room back, so it goes on.
        XCTAssertTrue(isStart(budget.grow(by: 30, holding: 50, "b")))
        XCTAssertEqual(budget.used, 130)
        // b ends: all that is held is a's, paused; a goes on, past the budget.
        XCTAssertEqual(woken(budget.changed(by: -80)), ["a"])
        XCTAssertEqual(budget.used, 80)
        XCTAssertEqual(budget.stateName, .open)
    }

    func testTheStateNames() {
        XCTAssertEqual(Budget.StateName.allCases.map(\.rawValue), ["open", "waiting"])
    }

    func testRecentSizesEstimateTheLargestNeedPerFetchOfTheLastEightRequests() {
        var sizes = RecentSizes()
        XCTAssertEqual(sizes.estimate, RecentSizes.unseen)
        // A body, its tape and its answer: all the request held at once.
        sizes.record(need: 400_000, bodies: 100_000, fetches: 1)
        XCTAssertEqual(sizes.estimate, 400_000)
        // Two fetches of a request share its need.
        sizes.record(need: 1_000_000, bodies: 300_000, fetches: 2)
        XCTAssertEqual(sizes.estimate, 500_000)
        for need in 1...8 { sizes.record(need: need, bodies: 0, fetches: 1) }
        XCTAssertEqual(sizes.estimate, 8, "the large ones have aged out")
    }

    func testRecentSizesSayWhichBodiesTheirEstimateCovers() {
        var sizes = RecentSizes()
        XCTAssertEqual(sizes.sizing, RecentSizes.unseenSizing)
        XCTAssertEqual(RecentSizes.unseenSizing.coveredBody, 0, "not seen: any body may outgrow the estimate")
        sizes.record(need: 12_000, bodies: 3_000, fetches: 1)
        sizes.record(need: 1_000_000, bodies: 300_000, fetches: 2)
        XCTAssertEqual(sizes.sizing.estimate, 500_000)
        XCTAssertEqual(sizes.sizing.coveredBody, 150_000, "the largest body per fetch")
    }

    func testRecentSizesNeedPerBodyByteComesFromLargeEnoughBodiesWithinBounds() {
        var sizes = RecentSizes()
        XCTAssertEqual(
            sizes.sizing.need(forBody: 1_000_000), Int(RecentSizes.unseenPerByte * 1_000_000), "not seen yet")
        // A small body says nothing of the need per byte: its answer's fixed costs dominate.
        sizes.record(need: 20_000, bodies: 100, fetches: 1)
        XCTAssertEqual(sizes.perByte, RecentSizes.unseenPerByte)
        sizes.record(need: 250_000, bodies: 100_000, fetches: 1)
        XCTAssertEqual(sizes.perByte, 2.5)
        XCTAssertEqual(sizes.sizing.need(forBody: 1_000_000), 2_500_000)
        sizes.record(need: 300_000, bodies: 100_000, fetches: 1)
        XCTAssertEqual(sizes.perByte, 3, "the largest of the recent requests")
        sizes.record(need: 100_000_000, bodies: 100_000, fetches: 1)
        XCTAssertEqual(sizes.perByte, RecentSizes.perByteRange.upperBound, "bounded above")
        var lean = RecentSizes()
        lean.record(need: 50_000, bodies: 100_000, fetches: 1)
        XCTAssertEqual(lean.perByte, 1, "never less than the body itself")
    }

    func testAWaiterIsMadeOnlyForAFetchThatWaits() throws {
        var budget = Budget(limit: 100)
        var made = 0
        func waiter(_ name: String) -> String {
            made += 1
            return name
        }
        XCTAssertTrue(isStart(budget.reserve(60, waiter("a"))))
        XCTAssertTrue(isStart(budget.grow(by: 10, holding: 60, waiter("a"))))
        XCTAssertEqual(made, 0, "nothing is made for the fast path")
        _ = try ticket(budget.reserve(50, waiter("b")))
        XCTAssertEqual(made, 1)
    }

    func testGivingBackMoreThanIsHeldTraps() throws {
        try expectTrap(containing: "impossible event 'changed by -1' in state 'open with 0 used'") {
            var budget = Budget(limit: 100)
            _ = budget.changed(by: -1)
        }
    }

    func testGivingBackMoreThanIsHeldWhileOthersWaitTraps() throws {
        try expectTrap(containing: "in state 'waiting with 90 used'") {
            var budget = Budget(limit: 100)
            _ = budget.reserve(90, "a")
            _ = budget.reserve(50, "b")
            _ = budget.changed(by: -91)
        }
    }
}
