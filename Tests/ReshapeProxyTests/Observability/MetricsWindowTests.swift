import XCTest

@testable import ReshapeProxy

/// Rates and quantiles over the status page's window, from real `Metrics` recordings.
final class MetricsWindowTests: XCTestCase {
    func testRatesAndQuantilesCoverOnlyTheWindow() {
        let metrics = Metrics()
        var window = MetricsWindow(seconds: 60)
        for _ in 0..<100 { metrics.recordRequest(route: "users", status: 200, seconds: 0.5) }  // old and slow
        window.record(.of([metrics]), at: 0)
        window.record(.of([metrics]), at: 30)
        for _ in 0..<90 { metrics.recordRequest(route: "users", status: 200, seconds: 0.002) }
        for _ in 0..<10 { metrics.recordRequest(route: "users", status: 502, seconds: 0.02) }
        metrics.recordDropped(route: "users", type: "User", count: 3)
        window.record(.of([metrics]), at: 90)
        // At 100 s the window's start is the sample at 30 s (the newest one at least 60 s old
        // was dropped when 90 came in, leaving 30 as the oldest kept).
        let figures = window.figures(.of([metrics]), at: 100)["users"]
        XCTAssertEqual(figures?.requestsPerSecond ?? 0, 100.0 / 70.0, accuracy: 1e-9)
        XCTAssertEqual(figures?.errorsPerSecond ?? 0, 10.0 / 70.0, accuracy: 1e-9)
        XCTAssertEqual(figures?.dropped, 3)
        // 90 of 100 in (0.001, 0.0025], 10 in (0.01, 0.025]: the slow old ones are outside.
        XCTAssertEqual(figures?.p50Seconds ?? 0, 0.001 + 0.0015 * (50.0 / 90.0), accuracy: 1e-12)
        XCTAssertEqual(figures?.p99Seconds ?? 0, 0.01 + 0.015 * (9.0 / 10.0), accuracy: 1e-12)
    }

    func testAFreshWindowMeasuresSinceItsFirstSample() {
        let metrics = Metrics()
        var window = MetricsWindow(seconds: 60)
        window.record(.of([metrics]), at: 10)
        metrics.recordRequest(route: "r", status: 200, seconds: 20)  // past every bucket
        let figures = window.figures(.of([metrics]), at: 12)["r"]
        XCTAssertEqual(figures?.requestsPerSecond ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(figures?.p99Seconds, Metrics.latencyBuckets.last)
        XCTAssertNil(MetricsWindow(seconds: 60).figures(.of([Metrics()]), at: 0)["r"])
    }
}
