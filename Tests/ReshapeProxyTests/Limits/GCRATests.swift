import ReshapeProxy
import XCTest

/// The cell rate algorithm alone: times in, verdicts out.
final class GCRATests: XCTestCase {
    func testABurstThenTheSteadyRate() {
        let gcra = GCRA(count: 10, intervalSeconds: 1, burst: 20)
        var tat: Double?
        for index in 0..<20 {
            guard case .admitted(let next, let remaining, _) = gcra.decide(tat: tat, now: 100) else {
                return XCTFail("request \(index) of the burst refused")
            }
            XCTAssertEqual(remaining, 19 - index)
            tat = next
        }
        guard case .limited(let retryAfter, _) = gcra.decide(tat: tat, now: 100) else {
            return XCTFail("the 21st at once admitted")
        }
        XCTAssertEqual(retryAfter, 0.1, accuracy: 1e-9)
        // A tenth of a second on: one more, then none.
        guard case .admitted(let next, 0, _) = gcra.decide(tat: tat, now: 100.1) else { return XCTFail() }
        guard case .limited = gcra.decide(tat: next, now: 100.1) else { return XCTFail() }
        // Idle for two seconds: the full burst is back.
        guard case .admitted(_, 19, _) = gcra.decide(tat: next, now: 102.2) else { return XCTFail() }
    }

    func testOverTenSecondsTheRateIsExact() {
        let gcra = GCRA(count: 10, intervalSeconds: 1, burst: 1)
        var tat: Double?
        var admitted = 0
        // A request every millisecond for 10 s: exactly 100 admitted (one per 0.1 s).
        for millisecond in 0..<10_000 {
            if case .admitted(let next, _, _) = gcra.decide(tat: tat, now: Double(millisecond) / 1000) {
                tat = next
                admitted += 1
            }
        }
        XCTAssertEqual(admitted, 100)
    }

    func testARefundGivesTheRequestBack() {
        let gcra = GCRA(count: 2, intervalSeconds: 60, burst: 2)
        guard case .admitted(let first, 1, _) = gcra.decide(tat: nil, now: 0),
            case .admitted(let second, 0, _) = gcra.decide(tat: first, now: 0)
        else { return XCTFail() }
        guard case .limited(let wait, _) = gcra.decide(tat: second, now: 0) else { return XCTFail() }
        XCTAssertEqual(wait, 30, accuracy: 1e-9)
        guard case .admitted = gcra.decide(tat: gcra.refund(tat: second), now: 0) else { return XCTFail() }
    }
}
