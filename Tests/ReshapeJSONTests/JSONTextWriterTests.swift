import XCTest

@testable import ReshapeJSON

/// `JSONTextWriter.bytes` writes into the array it returns while the output fits, and moves to
/// memory of its own (one copy) when it does not: the bytes are the same either way.
final class JSONTextWriterTests: XCTestCase {
    private func write(_ writer: JSONTextWriter, _ tape: JSONTape) {
        writer.appendRaw("{")
        writer.appendString("objects")
        writer.appendRaw(":")
        writer.append(tape, tape.root)
        writer.appendRaw("}")
    }

    func testWhatFitsAndWhatOverflowsTheBorrowedRoomComeOutAlike() throws {
        let text = #"[{"name":"Ada","tags":["x","é\n"]},{"name":"Bea","age":31}, 1.5e3, null]"#
        let tape = try JSONTape.parse(Array(text.utf8))
        let expected = Array(
            (#"{"objects":"# + #"[{"name":"Ada","tags":["x","é\n"]},{"name":"Bea","age":31},1.5e3,null]"# + "}").utf8)
        for capacity in [0, 1, 10, expected.count - 1, expected.count, expected.count + 1, 4096] {
            let bytes = JSONTextWriter.bytes(capacity: capacity) { write($0, tape) }
            XCTAssertEqual(bytes, expected, "capacity \(capacity)")
        }
    }

    func testABorrowedSinkThatGrowsKeepsWhatItHadWritten() {
        var storage = [UInt8](repeating: 0, count: 4)
        storage.withUnsafeMutableBufferPointer { buffer in
            var sink = ByteSink(borrowing: buffer)
            let text = Array("abcdefghij".utf8)
            text.withUnsafeBufferPointer { sink.append($0.baseAddress!, count: 3) }
            XCTAssertTrue(sink.isBorrowing)
            text.withUnsafeBufferPointer { sink.append($0.baseAddress! + 3, count: 7) }
            XCTAssertFalse(sink.isBorrowing)
            var out: [UInt8] = []
            sink.copy(into: &out)
            XCTAssertEqual(out, text)
            sink.release()
        }
        XCTAssertEqual(Array(storage.prefix(3)), Array("abc".utf8), "the borrowed room held the first bytes")
    }

    func testAnAnswerFarSmallerThanItsEstimateKeepsNoMoreThanItNeeds() {
        let small = JSONTextWriter.bytes(capacity: 1 << 20) { $0.appendRaw("[1,2,3]") }
        XCTAssertEqual(small, Array("[1,2,3]".utf8))
        XCTAssertLessThan(small.capacity, 4096, "a 7-byte answer does not keep a megabyte")
        let close = JSONTextWriter.bytes(capacity: 100_000) { writer in
            for _ in 0..<9_500 { writer.appendRaw("1234567890") }
        }
        XCTAssertEqual(close.count, 95_000)
    }

    func testIntegersAreWhatStringWrites() {
        for value in [0, 9, 10, 1234, -1, -987, Int.max, Int.min] {
            let bytes = JSONTextWriter.bytes(capacity: 8) { $0.appendInteger(value) }
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(value))
        }
    }
}
