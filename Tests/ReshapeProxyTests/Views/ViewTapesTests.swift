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

    func testTheBoundCountsTheTapesNodesAsWellAsTheirBytes() throws {
        // 110 000 small values: 330 KB of text, more than 1.7 MB of 16-byte nodes.
        let bodies = (0..<ViewTapes.maxEntries).map { i in
            Array(("[" + String(repeating: "0, ", count: 110_000) + "\(i)]").utf8)
        }
        XCTAssertLessThan(bodies.reduce(0) { $0 + $1.count }, ViewTapes.maxTotalBytes, "the bytes alone fit")
        let tapes = ViewTapes()
        var parsed: [JSONTape] = []
        for body in bodies { parsed.append(try XCTUnwrap(tapes.tape(of: body))) }
        XCTAssertTrue(parsed.allSatisfy { $0.nodeBytes > $0.bytes.count * 5 }, "nodes outweigh the text")
        XCTAssertGreaterThan(parsed.reduce(0) { $0 + ViewTapes.cost($1) }, ViewTapes.maxTotalBytes, "not with nodes")
        XCTAssertLessThanOrEqual(tapes.heldBytes, ViewTapes.maxTotalBytes)
        XCTAssertTrue(parsed.last === tapes.tape(of: bodies.last!), "the newest is kept")
        XCTAssertFalse(parsed[0] === tapes.tape(of: bodies[0]), "the oldest was dropped for the bound")
    }

    func testAnAnswerWhoseNodesAloneExceedAnEntrysShareIsNotKept() throws {
        // 600 KB of text, 300 001 nodes (4.8 MB or more): over the entry bound by its nodes.
        let body = Array(("[" + String(repeating: "0,", count: 300_000) + "0]").utf8)
        let tapes = ViewTapes()
        let tape = try XCTUnwrap(tapes.tape(of: body))
        XCTAssertGreaterThan(ViewTapes.cost(tape), ViewTapes.maxEntryBytes)
        XCTAssertLessThan(body.count, ViewTapes.maxEntryBytes)
        XCTAssertEqual(tapes.heldBytes, 0)
    }
}
