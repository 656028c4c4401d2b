import XCTest

@testable import ReshapeServer

/// A live stream's chunks: one write on its way, the rest framed together behind it.
final class ChunkQueueTests: XCTestCase {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func testTheFirstChunkGoesOutAtOnceAndLaterOnesWaitTogether() throws {
        var queue = ChunkQueue()
        let first = try XCTUnwrap(queue.add(Array("hello".utf8)))
        XCTAssertEqual(text(first.head) + text(first.body), "5\r\nhello\r\n")
        XCTAssertNil(queue.add(Array("a".utf8)))
        XCTAssertNil(queue.add(Array(repeating: UInt8(ascii: "b"), count: 17)))
        XCTAssertEqual(queue.waiting.count, "1\r\na\r\n".utf8.count + "11\r\n".utf8.count + 17 + 2)
        let waited = try XCTUnwrap(queue.writeDone())
        XCTAssertEqual(text(waited), "1\r\na\r\n11\r\n" + String(repeating: "b", count: 17) + "\r\n")
        XCTAssertTrue(queue.inFlight, "what waited is now the write on its way")
        XCTAssertNil(queue.writeDone())
        XCTAssertFalse(queue.inFlight)
        XCTAssertNotNil(queue.add(Array("c".utf8)), "nothing on its way: written at once")
    }

    func testTakeAllEmptiesWhatWaitsAheadOfTheLastChunk() throws {
        var queue = ChunkQueue()
        _ = queue.add(Array("x".utf8))
        XCTAssertNil(queue.takeAll())
        _ = queue.add(Array("y".utf8))
        XCTAssertEqual(text(try XCTUnwrap(queue.takeAll())), "1\r\ny\r\n")
        XCTAssertEqual(queue.waiting.count, 0)
        XCTAssertNil(queue.writeDone(), "the write on its way completes with nothing left")
    }
}
