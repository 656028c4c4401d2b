import XCTest

@testable import ReshapeLive

final class ServerSentEventWriterTests: XCTestCase {
    private func written(_ event: ServerSentEvent) -> String {
        var output: [UInt8] = []
        ServerSentEventWriter.append(event, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    func testFieldsInOrder() {
        XCTAssertEqual(
            written(ServerSentEvent(name: "patch", data: "[]", id: "42")), "id: 42\nevent: patch\ndata: []\n\n")
        XCTAssertEqual(written(ServerSentEvent(data: "x")), "event: message\ndata: x\n\n")
    }

    func testEachLineOfDataIsADataLine() {
        XCTAssertEqual(
            written(ServerSentEvent(data: "a\nb\r\nc\rd")), "event: message\ndata: a\ndata: b\ndata: c\ndata: d\n\n")
        XCTAssertEqual(written(ServerSentEvent(data: "")), "event: message\ndata:\n\n")
        XCTAssertEqual(written(ServerSentEvent(data: "\n")), "event: message\ndata:\ndata:\n\n")
        XCTAssertEqual(written(ServerSentEvent(data: " lead")), "event: message\ndata:  lead\n\n")
    }

    func testCommentIsABlockOfItsOwn() {
        var output: [UInt8] = []
        ServerSentEventWriter.appendComment("keep-alive", to: &output)
        ServerSentEventWriter.appendComment("", to: &output)
        ServerSentEventWriter.appendComment("two\nlines", to: &output)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), ": keep-alive\n\n:\n\n: two\n: lines\n\n")
    }

    func testRoundTripThroughTheParser() throws {
        let events = [
            ServerSentEvent(name: "put", data: #"{"path":"/","data":{"a":1}}"#, id: "1"),
            ServerSentEvent(data: ""),
            ServerSentEvent(data: "\n"),
            ServerSentEvent(name: "patch", data: "line one\n  line two\n\nlast é€😀", id: ""),
            ServerSentEvent(name: "keep-alive", data: "null", id: "abc:def"),
        ]
        var output: [UInt8] = []
        for event in events {
            ServerSentEventWriter.append(event, to: &output)
            ServerSentEventWriter.appendComment("ka", to: &output)
        }
        var parser = ServerSentEventParser()
        XCTAssertEqual(try parser.feed(output), events)
        XCTAssertEqual(parser.commentsSeen, events.count)
        XCTAssertEqual(parser.lastEventID, "abc:def")
    }

    func testCarriageReturnsInDataComeBackAsLineFeeds() throws {
        var output: [UInt8] = []
        ServerSentEventWriter.append(ServerSentEvent(data: "a\r\nb\rc"), to: &output)
        var parser = ServerSentEventParser()
        XCTAssertEqual(try parser.feed(output), [ServerSentEvent(data: "a\nb\nc")])
    }
}
