import XCTest

@testable import ReshapeServer

/// A finished large body's buffer is reused for the next large body once nothing reads it,
/// never while something does, and no more than two are kept.
final class SpareBodiesTests: XCTestCase {
    private let large = SpareBodies.minimumBytes + 100

    private func address(_ body: [UInt8]) -> UnsafeRawPointer? {
        body.withUnsafeBytes { $0.baseAddress }
    }

    func testABufferNobodyHoldsIsReusedInPlace() {
        let spares = SpareBodies()
        var body = spares.take(capacity: large)
        body.append(contentsOf: repeatElement(7, count: large))
        let first = address(body)
        spares.keep(body)
        body = []  // the request is done with it
        let next = spares.take(capacity: large)
        XCTAssertTrue(next.isEmpty)
        XCTAssertGreaterThanOrEqual(next.capacity, large)
        XCTAssertEqual(address(next), first)
    }

    func testABufferSomethingStillReadsIsNeverWrittenOver() {
        let spares = SpareBodies()
        var body = spares.take(capacity: large)
        body.append(contentsOf: repeatElement(7, count: large))
        spares.keep(body)
        let reader = body  // a tape still reading the first body
        var next = spares.take(capacity: large)
        next.append(contentsOf: repeatElement(9, count: large))
        XCTAssertNotEqual(address(next), address(reader))
        XCTAssertTrue(reader.allSatisfy { $0 == 7 })
    }

    func testSmallBodiesAreNotKeptAndAtMostTwoLargeOnesAre() {
        let spares = SpareBodies()
        spares.keep(Array(repeating: 1, count: 100))
        XCTAssertEqual(spares.keptCount, 0)
        for _ in 0..<5 { spares.keep(Array(repeating: 1, count: large)) }
        XCTAssertEqual(spares.keptCount, SpareBodies.maximumKept)
    }

    func testASmallBodyDoesNotTakeAMuchLargerBuffer() {
        let spares = SpareBodies()
        var huge = spares.take(capacity: 8 * large)
        huge.append(contentsOf: repeatElement(1, count: 8 * large))
        spares.keep(huge)
        huge = []
        let small = spares.take(capacity: large)
        XCTAssertLessThan(small.capacity, 2 * large + 64, "a buffer of eight times the size stays kept")
        XCTAssertEqual(spares.keptCount, 1)
    }
}
