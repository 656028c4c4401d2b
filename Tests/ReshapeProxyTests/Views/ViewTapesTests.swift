import ReshapeJSON
import XCTest

@testable import ReshapeProxy

/// `ViewTapes`: one parse per answer for its views, found by the answer's bytes.
final class ViewTapesTests: XCTestCase {
    func testTheSameBytesGiveTheSameTapeAndOtherBytesTheirOwn() throws {
        let tapes = ViewTapes()
        let body = Array(#"{"objects":[{"a":1}]}"#.utf8)
        let first = try XCTUnwrap(tapes.tape(of: body))
        XCTAssertTrue(first === tapes.tape(of: body), "the same buffer")
        XCTAssertTrue(first === tapes.tape(of: Array(#"{"objects":[{"a":1}]}"#.utf8)), "equal bytes")
        let other = try XCTUnwrap(tapes.tape(of: Array(#"{"objects":[{"a":2}]}"#.utf8)))
        XCTAssertFalse(first === other, "same length, other bytes")
        XCTAssertNil(tapes.tape(of: Array("not json".utf8)))
    }

    func testOnlyTheLastFewAreKept() throws {
        let tapes = ViewTapes()
        let bodies = (0...ViewTapes.maxEntries).map { Array("[\($0)]".utf8) }
        let first = try XCTUnwrap(tapes.tape(of: bodies[0]))
        for body in bodies.dropFirst() { _ = tapes.tape(of: body) }
        XCTAssertFalse(first === tapes.tape(of: bodies[0]), "the oldest was dropped")
    }
}
