import XCTest

@testable import ReshapeProxy

/// `traceparent` and `tracestate` per W3C Trace Context, level 1.
final class TraceContextTests: XCTestCase {
    private let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    func testAValidTraceparentIsRead() throws {
        let context = try XCTUnwrap(TraceContext.parse(traceparent: valid, tracestate: "congo=t61rcWkgMzE"))
        XCTAssertEqual(context.traceID, "4bf92f3577b34da6a3ce929d0e0e4736")
        XCTAssertEqual(context.spanID, "00f067aa0ba902b7")
        XCTAssertTrue(context.sampled)
        XCTAssertEqual(context.traceState, "congo=t61rcWkgMzE")
        XCTAssertEqual(context.traceparent, valid)
        XCTAssertFalse(
            try XCTUnwrap(TraceContext.parse(traceparent: String(valid.dropLast()) + "0", tracestate: nil)).sampled)
    }

    func testInvalidTraceparentsAreIgnored() {
        let invalid = [
            "", "00", valid.uppercased(), valid + "-", String(valid.dropLast()),
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero parent id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff is forbidden
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
        ]
        for value in invalid { XCTAssertNil(TraceContext.parse(traceparent: value, tracestate: nil), value) }
        XCTAssertNil(TraceContext.parse(traceparent: nil, tracestate: "a=b"))
    }

    func testALaterVersionIsReadByItsFirstFields() throws {
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-follows"
        XCTAssertEqual(try XCTUnwrap(TraceContext.parse(traceparent: later, tracestate: nil)).traceparent, valid)
    }

    func testStartedAndChildContexts() {
        var random = SystemRandomNumberGenerator()
        let root = TraceContext.start(sampled: true, using: &random)
        XCTAssertNotNil(TraceContext.parse(traceparent: root.traceparent, tracestate: nil))
        XCTAssertEqual(root.traceID.count, 32)
        let child = root.child(using: &random)
        XCTAssertEqual(child.traceID, root.traceID)
        XCTAssertNotEqual(child.spanID, root.spanID)
        XCTAssertEqual(child.spanID.count, 16)
    }

    /// An all-zero id is invalid (W3C Trace Context): a draw that makes one is drawn again.
    func testAnAllZeroIdIsDrawnAgain() {
        struct Draws: RandomNumberGenerator {
            var values: [UInt64]
            mutating func next() -> UInt64 { values.isEmpty ? 0xFF : values.removeFirst() }
        }
        var random = Draws(values: [0, 0, 0x0123_4567_89AB_CDEF])
        XCTAssertEqual(TraceContext.randomHex(bytes: 8, using: &random), "efcdab8967452301")
        var zeroThenHigh = Draws(values: [0, 0x0100_0000_0000_0000, 0])
        XCTAssertEqual(
            TraceContext.randomHex(bytes: 16, using: &zeroThenHigh), "0000000000000000" + "0000000000000001",
            "one non-zero byte anywhere is enough")
    }

    func testTraceStateIsPassedOnOnlyWhenUsable() {
        XCTAssertNil(TraceContext.validTraceState(String(repeating: "a", count: 513)))
        XCTAssertNil(TraceContext.validTraceState("a=b\u{7}"))
        XCTAssertNil(TraceContext.validTraceState(""))
        XCTAssertEqual(TraceContext.validTraceState("a=b,c=d"), "a=b,c=d")
    }
}
