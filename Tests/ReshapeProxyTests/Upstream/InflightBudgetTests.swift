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
    private struct NotAWait: Error, CustomStringConvertible {
        let description: String
    }
    /// The ticket of a fetch told to wait, letting nobody in; anything else fails the test.
    private func ticket(_ action: Budget.Action, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        guard case .wait(let ticket, let woken) = action else {
            throw NotAWait(description: "expected wait, got \(action)")
        }
        XCTAssertEqual(woken.map(\.waiter), [], "its waiting let others in", file: file, line: line)
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

    // MARK: - Requests that hold their finished fetches' bytes

    func testALaterFetchOfARequestAloneGoesBesideWhatItHolds() {
        // An `expand` on an idle server: its first fetch ended, and the request holds its 60
        // until its answer is written. Its follow-up waiting would wait for itself.
        var budget = Budget(limit: 100)
        XCTAssertTrue(isStart(budget.reserve(60, request: 1, "first")))
        XCTAssertTrue(isStart(budget.reserve(60, request: 1, held: 60, "follow-up")), "past the budget")
        XCTAssertEqual(budget.used, 120)
        // Another request's fetch finds a follow-up running: it waits for room.
        _ = try? ticket(budget.reserve(10, request: 2, "other"))
        XCTAssertEqual(budget.waiting, 1)
        XCTAssertEqual(woken(budget.released(120, by: 1)), ["other"])
        XCTAssertEqual(budget.heldByWaiters, 0)
    }

    func testWhenEveryRequestHoldingBytesWaitsTheFirstWaiterGoes() throws {
        // Two requests hold 50 each from their first fetches; both follow-ups queue.
        var budget = Budget(limit: 100)
        _ = budget.reserve(50, request: 1, "1")
        _ = budget.reserve(50, request: 2, "2")
        _ = try ticket(budget.reserve(30, request: 1, held: 50, "1b"))
        XCTAssertEqual(budget.heldByWaiters, 50, "2 still has bytes it may give back")
        guard case .wait(_, let letIn) = budget.reserve(30, request: 2, held: 50, "2b") else {
            return XCTFail("2b does not fit")
        }
        XCTAssertEqual(letIn.map(\.waiter), ["1b"], "nothing else would make room: the first goes")
        XCTAssertEqual(budget.used, 130)
        XCTAssertEqual(budget.waiting, 1)
        XCTAssertEqual(budget.heldByWaiters, 50, "1 is running again")
        // 1's follow-up ends: not told (1 has no fetch waiting), and 1 answers.
        XCTAssertEqual(woken(budget.released(80, by: 1)), ["2b"])
        XCTAssertEqual(budget.used, 80)
        XCTAssertEqual(budget.stateName, .open)
        XCTAssertEqual(budget.heldByWaiters, 0)
    }

    func testAFetchEndingWhileASiblingWaitsMayLetTheFirstWaiterGo() throws {
        // Two fetches of one request: a runs, b waits for room a holds.
        var budget = Budget(limit: 100)
        _ = budget.reserve(60, request: 1, "a")
        _ = try ticket(budget.reserve(60, request: 1, "b"))
        XCTAssertEqual(budget.heldByWaiters, 0, "a runs: it will end")
        // a ends, and its bytes pass to the request, which waits: nothing else holds any.
        XCTAssertEqual(woken(budget.passed(60, to: 1)), ["b"])
        XCTAssertEqual(budget.used, 120)
        XCTAssertTrue(isNone(budget.passed(60, to: 1)), "b ended too: the request waits for nothing")
        XCTAssertTrue(isNone(budget.released(120, by: 1)))
        XCTAssertEqual(budget.used, 0)
    }

    func testARunningFollowUpOfAWaitingRequestStillMakesTheOthersWait() throws {
        // A request holding 50 runs one follow-up past the budget and queues the next; it
        // does not let the next in, nor anyone else, until that follow-up ends.
        var budget = Budget(limit: 60)
        XCTAssertTrue(isStart(budget.reserve(40, request: 1, held: 50, "1a")), "all that is used is its own")
        budget = Budget(limit: 60)
        _ = budget.reserve(50, request: 1, "first")
        _ = budget.reserve(40, request: 1, held: 50, "1a")
        _ = try ticket(budget.reserve(40, request: 1, held: 50, "1b"))
        _ = try ticket(budget.reserve(10, request: 2, "2"))
        XCTAssertEqual(budget.heldByWaiters, 50)
        XCTAssertEqual(woken(budget.passed(40, to: 1)), ["1b"], "1a ended: everything is 1's again")
        XCTAssertEqual(budget.waiting, 1, "1b runs: 2 waits for it")
        XCTAssertTrue(isNone(budget.passed(40, to: 1)))
        XCTAssertEqual(woken(budget.released(130, by: 1)), ["2"])
    }

    func testAPausedTransferAndWhatItsRequestHoldsAreBothStuck() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(40, request: 1, "first")
        _ = budget.reserve(40, request: 1, held: 40, "second")
        _ = budget.reserve(20, request: 2, "other")
        // The other ends and its request answers: all that runs is 1's second fetch, which
        // would pause; nothing else would give room back, so it goes on.
        XCTAssertTrue(isNone(budget.released(20, by: 2)))
        XCTAssertTrue(isStart(budget.grow(by: 50, holding: 40, request: 1, held: 40, "second")))
        XCTAssertEqual(budget.used, 130)
        XCTAssertTrue(isNone(budget.changed(by: -50)))
        // With another request's fetch running, it pauses, holding what it has.
        _ = budget.reserve(10, request: 3, "third")
        let paused = try ticket(budget.grow(by: 50, holding: 40, request: 1, held: 40, "second"))
        XCTAssertEqual(budget.heldByWaiters, 80, "its reservation and its request's")
        // The third fetch ends and passes its bytes to its request, which waits for nothing.
        XCTAssertTrue(isNone(budget.passed(10, to: 3)))
        XCTAssertEqual(woken(budget.released(10, by: 3)), ["second"])
        XCTAssertTrue(isNone(budget.timedOut(ticket: paused)), "woken already")
        XCTAssertEqual(budget.heldByWaiters, 0)
        XCTAssertEqual(budget.used, 130)
    }

    func testAWaitingRequestThatEndsGivesBackWhatItHeldAndLeavesTheQueue() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(50, request: 1, "1")
        _ = budget.reserve(45, request: 2, "2")
        let waiting = try ticket(budget.reserve(60, request: 1, held: 50, "1b"))
        _ = try ticket(budget.reserve(30, request: 3, "3"))
        XCTAssertEqual(budget.heldByWaiters, 50)
        // 1's client leaves: its bytes come back before its waiting fetch is cancelled.
        XCTAssertTrue(isNone(budget.released(50, by: 1)), "1b is still first, and does not fit")
        XCTAssertEqual(budget.heldByWaiters, 0)
        XCTAssertEqual(woken(budget.left(ticket: waiting, bytes: 60)), ["3"])
        XCTAssertEqual(budget.used, 75)
        XCTAssertEqual(budget.stateName, .open)
    }

    func testAWaiterOfAHoldingRequestTimingOutLetsItsBytesCountAsRunningAgain() throws {
        var budget = Budget(limit: 100)
        _ = budget.reserve(50, request: 1, "1")
        _ = budget.reserve(30, request: 2, "2")
        _ = budget.reserve(10, request: 3, "3")
        let late = try ticket(budget.reserve(40, request: 1, held: 50, "1b"))
        _ = try ticket(budget.reserve(40, request: 2, held: 30, "2b"))
        XCTAssertEqual(budget.heldByWaiters, 80, "3 runs")
        guard case .shed(let letIn) = budget.timedOut(ticket: late) else { return XCTFail("not shed") }
        XCTAssertEqual(letIn.map(\.waiter), [])
        XCTAssertEqual(budget.heldByWaiters, 30)
        // 3 answers: 1 is about to answer its 503 and give its bytes back; 2b waits for that.
        XCTAssertTrue(isNone(budget.released(10, by: 3)))
        XCTAssertEqual(woken(budget.released(50, by: 1)), ["2b"])
    }

    func testAWaitOfAFetchOfNoRequestHoldsNothingStuck() throws {
        // A key set's fetch: no request holds its bytes.
        var budget = Budget(limit: 100)
        _ = budget.reserve(90, "a")
        _ = try ticket(budget.reserve(50, "keys"))
        XCTAssertEqual(budget.heldByWaiters, 0)
        XCTAssertTrue(isNone(budget.passed(10, to: 7)), "no such request waits")
        XCTAssertEqual(woken(budget.changed(by: -90)), ["keys"])
    }

    func testARequestWaitingForAPlaceHoldsItsBytesStuck() throws {
        // Request 1 holds 80 from its first fetch; its follow-up waits for the upstream's one
        // place, which request 2's fetch holds while it waits here for room 1 holds.
        var budget = Budget(limit: 100)
        _ = budget.reserve(80, request: 1, "1")
        XCTAssertTrue(isNone(budget.passed(80, to: 1)), "1 waits for nothing yet")
        _ = try ticket(budget.reserve(40, request: 2, "2"))
        XCTAssertEqual(budget.heldByWaiters, 0, "1 may still answer")
        XCTAssertEqual(woken(budget.heldWhileBlocked(request: 1, held: 80)), ["2"], "nothing else would make room")
        XCTAssertEqual(budget.used, 120)
        XCTAssertEqual(budget.heldByWaiters, 80)
        // 2 ends, its place goes to 1's follow-up, which then reserves beside what 1 holds.
        XCTAssertTrue(isNone(budget.released(40, by: 2)))
        budget.blockEnded(request: 1)
        XCTAssertEqual(budget.heldByWaiters, 0)
        XCTAssertTrue(isStart(budget.reserve(40, request: 1, held: 80, "1b")), "all that is used is its own")
        XCTAssertTrue(isNone(budget.released(120, by: 1)))
        XCTAssertEqual(budget.used, 0)
    }

    func testWhatARequestWaitingForAPlaceTakesMeanwhileIsStuckToo() throws {
        // 1's two follow-ups: one runs, one waits for a place; another request's fetch runs.
        var budget = Budget(limit: 100)
        _ = budget.reserve(30, request: 1, "1")
        XCTAssertTrue(isNone(budget.passed(30, to: 1)))
        XCTAssertTrue(isNone(budget.heldWhileBlocked(request: 1, held: 30)), "nobody waits for room")
        XCTAssertTrue(isStart(budget.reserve(30, request: 1, held: 30, "1a")))
        _ = budget.reserve(20, request: 3, "3")
        _ = try ticket(budget.reserve(40, request: 2, "2"))
        XCTAssertEqual(budget.heldByWaiters, 30)
        // 1a ends: 1 holds 60 now, and its bytes stay while its other follow-up waits.
        XCTAssertTrue(isNone(budget.passed(30, to: 1)), "3 runs: it will end")
        XCTAssertEqual(budget.heldByWaiters, 60)
        XCTAssertEqual(woken(budget.released(20, by: 3)), ["2"], "only waiters hold bytes")
        budget.blockEnded(request: 1)
        XCTAssertEqual(budget.heldByWaiters, 0)
    }

    func testAnAnswerWaitingBehindAnEarlierRequestHoldsItsBytesStuck() throws {
        // Request 2's answer (90) waits on its connection behind request 1, which had no
        // bytes when its fetch got its place: it cannot come back before 1 is answered.
        var budget = Budget(limit: 100)
        _ = budget.reserve(90, request: 2, "2")
        XCTAssertTrue(isNone(budget.passed(90, to: 2)))
        let first = try ticket(budget.reserve(40, request: 1, "1"))
        XCTAssertEqual(budget.heldByWaiters, 0, "2's answer may still be written")
        XCTAssertEqual(woken(budget.heldWhileBlocked(request: 2, held: 90)), ["1"], "nothing else would make room")
        XCTAssertEqual(budget.used, 130)
        // 1's answer is written, then 2's: 2 gives its bytes back.
        XCTAssertTrue(isNone(budget.timedOut(ticket: first)), "1 was woken already")
        budget.blockEnded(request: 2)
        XCTAssertEqual(budget.heldByWaiters, 0)
        XCTAssertTrue(isNone(budget.released(40, by: 1)))
        XCTAssertTrue(isNone(budget.released(90, by: 2)))
        XCTAssertEqual(budget.used, 0)
        // Behind a request that runs, an answer lets nobody past the budget.
        _ = budget.reserve(50, request: 3, "3")
        _ = budget.reserve(40, request: 4, "4")
        XCTAssertTrue(isNone(budget.passed(40, to: 4)))
        _ = try ticket(budget.reserve(30, request: 5, "5"))
        XCTAssertTrue(isNone(budget.heldWhileBlocked(request: 4, held: 40)), "3 runs: it will end")
        XCTAssertEqual(woken(budget.released(50, by: 3)), ["5"])
        budget.blockEnded(request: 4)
        XCTAssertEqual(budget.heldByWaiters, 0)
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
        XCTAssertTrue(isStart(budget.reserve(20, waiter("c"))))
        _ = try ticket(budget.reserve(50, waiter("b")))
        XCTAssertEqual(made, 1)
        _ = try ticket(budget.grow(by: 50, holding: 70, waiter("a")))
        XCTAssertEqual(made, 2)
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
