import XCTest

@testable import ReshapeJSON

/// A large tape's node block goes to the next large parse instead of back to the system, and
/// what is kept stays bounded.
final class TapeNodeBlocksTests: XCTestCase {
    /// An array of `count` small objects: about 40 bytes and 5 nodes each.
    private func document(records count: Int) -> [UInt8] {
        var text = "["
        for i in 0..<count { text += (i == 0 ? "" : ",") + #"{"id":\#(i),"name":"n\#(i)"}"# }
        return Array((text + "]").utf8)
    }

    func testALargeTapesNodesAreReusedByTheNextLargeParse() throws {
        let big = document(records: 40_000)  // about 1.1 MB: its node block is 2 MB
        TapeNodeBlocks.drain()
        var first: JSONTape? = try JSONTape.parse(big)
        let nodes = first!.nodes
        let root = first!.materialize(first!.root)
        first = nil
        XCTAssertEqual(TapeNodeBlocks.keptCount, 1)
        let second = try JSONTape.parse(big)
        XCTAssertEqual(second.nodes, nodes, "the block of the first tape was taken again")
        XCTAssertEqual(second.materialize(second.root), root, "a reused block parses the same tape")
        XCTAssertEqual(TapeNodeBlocks.keptCount, 0)
    }

    func testSmallTapesNeverTouchTheKeptBlocks() throws {
        let before = TapeNodeBlocks.keptCount
        for _ in 0..<10 { _ = try JSONTape.parse(document(records: 10)) }
        XCTAssertEqual(TapeNodeBlocks.keptCount, before)
    }

    func testNoMoreThanTheBoundIsKept() throws {
        let tapes = try (0..<5).map { _ in try JSONTape.parse(document(records: 40_000)) }
        XCTAssertEqual(tapes.count, 5)
        _ = consume tapes
        XCTAssertLessThanOrEqual(TapeNodeBlocks.keptCount, TapeNodeBlocks.maximumKept)
    }

    func testAFailedLargeParseGivesItsBlockBack() throws {
        var bad = document(records: 40_000)
        bad[bad.count - 1] = UInt8(ascii: "}")
        XCTAssertThrowsError(try JSONTape.parse(bad))
        XCTAssertGreaterThan(TapeNodeBlocks.keptCount, 0)
        _ = try JSONTape.parse(document(records: 40_000))
    }

    func testATapeInAReusedBlockSaysWhatItsNodesNeedApartFromTheBlock() throws {
        let needed = try JSONTape.parse(document(records: 60_000)).usedNodeBytes
        TapeNodeBlocks.drain()
        var big: JSONTape? = try JSONTape.parse(document(records: 100_000))
        let bigNodes = big!.nodes
        big = nil
        let reused = try JSONTape.parse(document(records: 60_000))
        XCTAssertEqual(reused.nodes, bigNodes, "it took the larger block")
        XCTAssertEqual(reused.usedNodeBytes, needed, "the nodes are the document's")
        XCTAssertGreaterThan(reused.nodeBytes, reused.usedNodeBytes, "the larger block it took")
        XCTAssertEqual(reused.usedNodeBytes, reused.nodeCount * MemoryLayout<TapeNode>.stride)
        TapeNodeBlocks.drain()
    }

    func testASmallParseDoesNotTakeAMuchLargerBlock() throws {
        TapeNodeBlocks.drain()
        var big: JSONTape? = try JSONTape.parse(document(records: 200_000))  // a block of about 11 MB
        let bigNodes = big!.nodes
        big = nil
        XCTAssertEqual(TapeNodeBlocks.keptCount, 1)
        let small = try JSONTape.parse(document(records: 40_000))  // needs about 2 MB
        XCTAssertNotEqual(small.nodes, bigNodes)
        XCTAssertEqual(TapeNodeBlocks.keptCount, 1, "the large block stays kept")
        TapeNodeBlocks.drain()
    }
}
