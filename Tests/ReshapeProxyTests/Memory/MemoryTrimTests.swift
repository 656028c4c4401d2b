import XCTest

@testable import ReshapeProxy

/// When the process hands freed memory back: after a load has ended, not during it, nor after
/// a small one.
final class MemoryTrimTests: XCTestCase {
    private func load(_ connections: Int, _ requests: Int) -> MemoryTrim.Load {
        MemoryTrim.Load(connections: connections, requests: requests)
    }

    func testTenThousandRequestsAnsweredOnConnectionsThatStayOpenTrimThenTheirCloseTrims() {
        var trim = MemoryTrim()
        XCTAssertFalse(trim.sampled(peak: load(2, 0), now: load(2, 0), budgetBusy: false), "idle")
        XCTAssertFalse(
            trim.sampled(peak: load(8_000, 3_000), now: load(8_000, 2_500), budgetBusy: false), "the burst goes on")
        XCTAssertTrue(
            trim.sampled(peak: load(10_000, 2_500), now: load(10_000, 0), budgetBusy: false),
            "every request answered; the connections stay open, idle")
        XCTAssertFalse(trim.sampled(peak: load(10_000, 0), now: load(10_000, 0), budgetBusy: false))
        XCTAssertTrue(trim.sampled(peak: load(10_000, 0), now: load(0, 0), budgetBusy: false), "every one closed")
        XCTAssertFalse(trim.sampled(peak: load(0, 0), now: load(0, 0), budgetBusy: false))
    }

    func testABurstBetweenTwoSamplesIsSeenByItsPeak() {
        var trim = MemoryTrim()
        XCTAssertTrue(trim.sampled(peak: load(12_000, 4_000), now: load(3, 0), budgetBusy: false))
    }

    func testASmallLoadOrAShallowFallDoesNotTrim() {
        var trim = MemoryTrim()
        XCTAssertFalse(
            trim.sampled(peak: load(64, 64), now: load(0, 0), budgetBusy: false), "wrk's 64 connections come and go")
        XCTAssertFalse(trim.sampled(peak: load(5_000, 0), now: load(4_000, 0), budgetBusy: false), "fell by a fifth")
        XCTAssertFalse(
            trim.sampled(peak: load(4_000, 0), now: load(3_000, 0), budgetBusy: false),
            "2,000 below the height, not half")
        XCTAssertTrue(
            trim.sampled(peak: load(3_000, 0), now: load(2_400, 0), budgetBusy: false), "half the height, 2,600 fewer")
    }

    func testTheBudgetEmptyingTrims() {
        var trim = MemoryTrim()
        XCTAssertFalse(trim.sampled(peak: load(10, 10), now: load(10, 10), budgetBusy: true))
        XCTAssertFalse(trim.sampled(peak: load(10, 10), now: load(10, 10), budgetBusy: true), "still holding bodies")
        XCTAssertTrue(trim.sampled(peak: load(10, 10), now: load(10, 0), budgetBusy: false), "the last body let go")
        XCTAssertFalse(trim.sampled(peak: load(10, 0), now: load(10, 0), budgetBusy: false))
    }
}
