import XCTest

@testable import ReshapeServer

/// A live stream's chunks: one write on its way, the rest framed together behind it.
final class ChunkQueueTests: XCTestCase {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    private func chunk(_ text: String) -> StreamChunk { StreamChunk(own: Array(text.utf8)) }

    func testTheFirstChunkGoesOutAtOnceAndLaterOnesWaitTogether() throws {
        var queue = ChunkQueue()
        let first = try XCTUnwrap(queue.add(chunk("hello")))
        XCTAssertEqual(text(first.head) + text(first.body) + text(first.tail), "5\r\nhello\r\n")
        XCTAssertNil(queue.add(chunk("a")))
        XCTAssertNil(queue.add(chunk(String(repeating: "b", count: 17))))
        XCTAssertEqual(queue.waiting.count, "1\r\na\r\n".utf8.count + "11\r\n".utf8.count + 17 + 2)
        let waited = try XCTUnwrap(queue.writeDone())
        XCTAssertEqual(text(waited), "1\r\na\r\n11\r\n" + String(repeating: "b", count: 17) + "\r\n")
        XCTAssertTrue(queue.inFlight, "what waited is now the write on its way")
        XCTAssertNil(queue.writeDone())
        XCTAssertFalse(queue.inFlight)
        XCTAssertNotNil(queue.add(chunk("c")), "nothing on its way: written at once")
    }

    func testSharedBytesAreWrittenFromTheirOwnArray() throws {
        var queue = ChunkQueue()
        let shared = Array("event: snapshot\ndata: {}\n\n".utf8)
        let write = try XCTUnwrap(queue.add(StreamChunk(own: Array("id: 7\n".utf8), shared: shared)))
        XCTAssertEqual(text(write.head), "20\r\nid: 7\n", "the size counts both parts")
        XCTAssertEqual(text(write.tail), "\r\n")
        write.body.withUnsafeBufferPointer { body in
            shared.withUnsafeBufferPointer { XCTAssertEqual(body.baseAddress, $0.baseAddress, "not a copy") }
        }
        XCTAssertNil(queue.add(StreamChunk(own: Array("id: 8\n".utf8), shared: shared)))
        XCTAssertEqual(text(try XCTUnwrap(queue.writeDone())), "20\r\nid: 8\nevent: snapshot\ndata: {}\n\n\r\n")
    }

    func testTakeAllEmptiesWhatWaitsAheadOfTheLastChunk() throws {
        var queue = ChunkQueue()
        _ = queue.add(chunk("x"))
        XCTAssertNil(queue.takeAll())
        _ = queue.add(chunk("y"))
        XCTAssertEqual(text(try XCTUnwrap(queue.takeAll())), "1\r\ny\r\n")
        XCTAssertEqual(queue.waiting.count, 0)
        XCTAssertNil(queue.writeDone(), "the write on its way completes with nothing left")
    }
}
