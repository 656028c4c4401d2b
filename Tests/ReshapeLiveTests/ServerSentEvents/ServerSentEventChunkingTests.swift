import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// The same bytes, cut anywhere, give the same events and the same parser state.
final class ServerSentEventChunkingTests: XCTestCase {
    private static let streams: [[UInt8]] = [
        [0xEF, 0xBB, 0xBF] + Array("event: put\r\ndata: {\"path\":\"/\",\"data\":1}\r\n\r\n: ka\r\rdata: x\r\r".utf8),
        Array("id: 1\nevent: patch\ndata: a\ndata: é€😀\n\nretry: 250\n:\n\ndata\n\n".utf8),
        Array("data: a".utf8) + [0xF0, 0x9F, 0x98] + Array("\r\n\r\nid: x\u{0}\ndata:b\rid: 2\r\n\r\n".utf8),
        Array("data: \r\n\ndata:\n\n\n\r\r\nevent:e\ndata: tail\n\n".utf8),
    ]

    private struct Outcome: Equatable {
        var events: [ServerSentEvent]
        var comments: Int
        var lastEventID: String
        var retry: Int?
    }

    private func outcome(_ stream: [UInt8], cutAt cuts: [Int]) throws -> Outcome {
        var parser = ServerSentEventParser(maxEventBytes: 1024)
        var events: [ServerSentEvent] = []
        var start = 0
        for end in cuts + [stream.count] {
            events += try parser.feed(Array(stream[start..<end]))
            start = end
        }
        return Outcome(
            events: events, comments: parser.commentsSeen, lastEventID: parser.lastEventID,
            retry: parser.retryMilliseconds)
    }

    func testTheWholeStreamsParseAsExpected() throws {
        XCTAssertEqual(
            try outcome(Self.streams[0], cutAt: []),
            Outcome(
                events: [ServerSentEvent(name: "put", data: #"{"path":"/","data":1}"#), ServerSentEvent(data: "x")],
                comments: 1, lastEventID: "", retry: nil))
        XCTAssertEqual(
            try outcome(Self.streams[1], cutAt: []),
            Outcome(
                events: [ServerSentEvent(name: "patch", data: "a\né€😀", id: "1"), ServerSentEvent(data: "")],
                comments: 1, lastEventID: "1", retry: 250))
        XCTAssertEqual(
            try outcome(Self.streams[2], cutAt: []),
            Outcome(
                events: [ServerSentEvent(data: "a\u{FFFD}"), ServerSentEvent(data: "b", id: "2")],
                comments: 0, lastEventID: "2", retry: nil))
    }

    func testEveryOneAndTwoCutPointsGiveTheSameOutcome() throws {
        for stream in Self.streams {
            let whole = try outcome(stream, cutAt: [])
            for i in 0...stream.count {
                XCTAssertEqual(try outcome(stream, cutAt: [i]), whole, "cut at \(i)")
                for j in i...stream.count {
                    let cut = try outcome(stream, cutAt: [i, j])
                    if cut != whole { return XCTFail("cuts at \(i), \(j): \(cut) != \(whole)") }
                }
            }
        }
    }

    func testByteByByteGivesTheSameOutcome() throws {
        for stream in Self.streams {
            XCTAssertEqual(try outcome(stream, cutAt: Array(1..<stream.count)), try outcome(stream, cutAt: []))
        }
    }

    func testRandomChunkingsGiveTheSameOutcome() throws {
        var random = SplitMix64(seed: 20)
        for stream in Self.streams {
            let whole = try outcome(stream, cutAt: [])
            for _ in 0..<500 {
                let cuts = (0..<Int(random.next() % 8)).map { _ in Int(random.next() % UInt64(stream.count + 1)) }
                XCTAssertEqual(try outcome(stream, cutAt: cuts.sorted()), whole, "cuts \(cuts.sorted())")
            }
        }
    }
}
