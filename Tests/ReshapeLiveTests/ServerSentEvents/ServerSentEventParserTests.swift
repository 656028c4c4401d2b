import XCTest

@testable import ReshapeLive

final class ServerSentEventParserTests: XCTestCase {
    private func events(_ text: String, maxEventBytes: Int = 1 << 20) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(maxEventBytes: maxEventBytes)
        return try parser.feed(Array(text.utf8))
    }

    func testFirebasePutAndKeepAlive() throws {
        let stream = "event: put\ndata: {\"path\": \"/\", \"data\": {\"a\": 1}}\n\nevent: keep-alive\ndata: null\n\n"
        XCTAssertEqual(
            try events(stream),
            [
                ServerSentEvent(name: "put", data: #"{"path": "/", "data": {"a": 1}}"#),
                ServerSentEvent(name: "keep-alive", data: "null"),
            ])
    }

    func testLineEndsCRLFAndCRAndLFAreAllLineEnds() throws {
        let expected = [ServerSentEvent(data: "a\nb"), ServerSentEvent(name: "x", data: "c")]
        XCTAssertEqual(try events("data: a\r\ndata: b\r\n\r\nevent: x\r\ndata: c\r\n\r\n"), expected)
        XCTAssertEqual(try events("data: a\rdata: b\r\revent: x\rdata: c\r\r"), expected)
        XCTAssertEqual(try events("data: a\ndata: b\r\n\revent: x\rdata: c\n\r\n"), expected)
    }

    func testDataLinesJoinWithLineFeedAndOneSpaceIsRemoved() throws {
        XCTAssertEqual(try events("data:a\ndata:  b\ndata\ndata:\n\n"), [ServerSentEvent(data: "a\n b\n\n")])
        // A line with no colon is a field with an empty value.
        XCTAssertEqual(try events("data\n\n"), [ServerSentEvent(data: "")])
    }

    func testBlankLineWithoutDataDispatchesNothingAndResetsTheName() throws {
        XCTAssertEqual(try events("event: put\n\ndata: x\n\n"), [ServerSentEvent(data: "x")])
        XCTAssertEqual(try events("\n\n\n"), [])
    }

    func testAnUnfinishedEventIsNotDispatched() throws {
        XCTAssertEqual(try events("data: x\n"), [])
        XCTAssertEqual(try events("data: x"), [])
    }

    func testCommentsAreCountedAndIgnored() throws {
        var parser = ServerSentEventParser()
        XCTAssertEqual(try parser.feed(Array(": hello\n:\ndata: x\n: mid\n\n".utf8)), [ServerSentEvent(data: "x")])
        XCTAssertEqual(parser.commentsSeen, 3)
    }

    func testUnknownFieldsAreIgnoredAndFieldNamesAreCaseSensitive() throws {
        XCTAssertEqual(try events("foo: bar\nData: no\nEVENT: no\ndata: yes\n\n"), [ServerSentEvent(data: "yes")])
    }

    func testIdSetsTheEventsIdAndTheLastEventID() throws {
        var parser = ServerSentEventParser()
        XCTAssertEqual(parser.lastEventID, "")
        let first = try parser.feed(Array("id: 7\ndata: a\n\ndata: b\n\n".utf8))
        XCTAssertEqual(first, [ServerSentEvent(data: "a", id: "7"), ServerSentEvent(data: "b")])
        XCTAssertEqual(parser.lastEventID, "7")
        // An id with NUL is ignored; an id without data still sets the last event ID at the blank line.
        _ = try parser.feed(Array("id: 8\u{0}\n\n".utf8))
        XCTAssertEqual(parser.lastEventID, "7")
        _ = try parser.feed(Array("id: 9\n".utf8))
        XCTAssertEqual(parser.lastEventID, "7", "takes effect only when the event ends")
        _ = try parser.feed(Array("\n".utf8))
        XCTAssertEqual(parser.lastEventID, "9")
        _ = try parser.feed(Array("id\n\n".utf8))
        XCTAssertEqual(parser.lastEventID, "", "an empty id clears it")
    }

    func testRetryTakesDigitsOnly() throws {
        var parser = ServerSentEventParser()
        XCTAssertNil(parser.retryMilliseconds)
        _ = try parser.feed(Array("retry: 1500\n".utf8))
        XCTAssertEqual(parser.retryMilliseconds, 1500)
        for ignored in ["retry: 15s\n", "retry: -1\n", "retry:\n", "retry: 1 \n", "retry: 99999999999999999999999\n"] {
            _ = try parser.feed(Array(ignored.utf8))
            XCTAssertEqual(parser.retryMilliseconds, 1500, ignored)
        }
        _ = try parser.feed(Array("retry:0\n".utf8))
        XCTAssertEqual(parser.retryMilliseconds, 0)
    }

    func testALeadingBOMIsSkippedOnce() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        var parser = ServerSentEventParser()
        XCTAssertEqual(try parser.feed(bom + Array("data: a\n\n".utf8)), [ServerSentEvent(data: "a")])
        // A second BOM is part of the field name, which is then unknown.
        var twice = ServerSentEventParser()
        XCTAssertEqual(try twice.feed(bom + bom + Array("data: a\n\ndata: b\n\n".utf8)), [ServerSentEvent(data: "b")])
        // Not at the start of the stream: the same.
        var later = ServerSentEventParser()
        XCTAssertEqual(try later.feed(Array("\n".utf8) + bom + Array("data: a\n\n".utf8)), [])
    }

    func testInvalidUTF8IsReplaced() throws {
        var parser = ServerSentEventParser()
        let bytes = Array("data: a".utf8) + [0xFF, 0xE2, 0x82] + Array("\ndata: ".utf8) + [0xC3] + Array("\n\n".utf8)
        XCTAssertEqual(try parser.feed(bytes), [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}\n\u{FFFD}")])
        XCTAssertEqual(try events("data: é€😀\n\n"), [ServerSentEvent(data: "é€😀")])
    }

    func testALineLongerThanTheBoundThrowsAndStaysFailed() throws {
        var parser = ServerSentEventParser(maxEventBytes: 16)
        XCTAssertEqual(try parser.feed(Array("data: 0123456789\n\n".utf8)), [ServerSentEvent(data: "0123456789")])
        XCTAssertThrowsError(try parser.feed(Array("data: 0123456789ABCDEF\n".utf8))) {
            XCTAssertEqual($0 as? ServerSentEventParser.Failure, .eventTooLarge(limit: 16))
        }
        XCTAssertThrowsError(try parser.feed(Array("data: x\n\n".utf8)), "a failed stream stays failed")
    }

    func testAPartialLineLongerThanTheBoundThrowsBeforeItEnds() throws {
        var parser = ServerSentEventParser(maxEventBytes: 16)
        _ = try parser.feed(Array("data: 0123".utf8))
        XCTAssertThrowsError(try parser.feed(Array(repeating: UInt8(ascii: "x"), count: 100)))
    }

    func testDataOverManyLinesLongerThanTheBoundThrows() throws {
        var parser = ServerSentEventParser(maxEventBytes: 16)
        _ = try parser.feed(Array("data: 01234\ndata: 56789\n".utf8))  // 12 bytes of data
        XCTAssertThrowsError(try parser.feed(Array("data: abcd\n".utf8)))
    }

    /// A several-megabyte `put` (Firebase's first event) in network-sized chunks.
    func testALargeEventInChunks() throws {
        let body = String(repeating: #"{"name":"Ada Lovelace","year":1815},"#, count: 100_000)
        let stream = Array("event: put\ndata: {\"path\":\"/\",\"data\":[\(body)0]}\n\n".utf8)
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var start = 0
        while start < stream.count {
            let end = min(start + 65_536, stream.count)
            events += try parser.feed(Array(stream[start..<end]))
            start = end
        }
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events.first?.name, "put")
        XCTAssertEqual(events.first?.data.utf8.count, stream.count - "event: put\ndata: \n\n".utf8.count)
    }
}
