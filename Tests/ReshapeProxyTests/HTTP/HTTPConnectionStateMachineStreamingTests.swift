import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// A live stream as a connection's answer: its head in turn, the state that only watches for
/// the client leaving, and the last chunk.
final class HTTPConnectionStateMachineStreamingTests: XCTestCase {
    typealias Machine = HTTPConnectionStateMachine

    private let get = HTTPRequest(method: "GET", target: "/a")
    private let answer = HTTPResponse.json(200, Array("1".utf8))

    private func read(_ request: HTTPRequest, into machine: inout Machine) {
        _ =
            machine.handle(.messageBegan) + machine.handle(.headersComplete(RequestHead()))
            + machine.handle(.messageComplete(request))
    }

    private func writes(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { if case .write(let head, let body, _) = $0 { (head + body).text } else { nil } }
    }

    func testAStreamWritesItsHeadAndStopsReadingRequests() {
        var machine = Machine(limits: ServerLimits())
        machine.date = "Thu, 26 Nov 2026 02:00:00 GMT"
        read(get, into: &machine)
        let actions = machine.handle(.streamReady(id: 0))
        XCTAssertEqual(machine.stateName, "streaming")
        XCTAssertFalse(machine.readsRequests)
        XCTAssertTrue(machine.isStreaming)
        let head = writes(actions).first ?? ""
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\n"), head)
        XCTAssertTrue(head.contains("Content-Type: text/event-stream\r\n"))
        XCTAssertTrue(head.contains("Cache-Control: no-store\r\n"))
        XCTAssertTrue(head.contains("Transfer-Encoding: chunked\r\n"))
        XCTAssertTrue(head.contains("Date: Thu, 26 Nov 2026 02:00:00 GMT\r\n"))
        XCTAssertFalse(head.contains("Content-Length"))
        XCTAssertEqual(actions.last, .streamOpened(id: 0))
    }

    func testAStreamWaitsForEarlierAnswersAndCancelsLaterRequests() {
        var machine = Machine(limits: ServerLimits())
        read(get, into: &machine)
        read(get, into: &machine)
        read(get, into: &machine)
        XCTAssertEqual(machine.handle(.streamReady(id: 1)), [], "request 0 is answered first")
        let actions = machine.handle(.responseReady(id: 0, answer))
        XCTAssertEqual(writes(actions).count, 2, "the answer, then the stream's head")
        XCTAssertTrue(actions.contains(.cancel(id: 2)), "a request read after the stream is never answered")
        XCTAssertEqual(actions.last, .streamOpened(id: 1))
        XCTAssertEqual(machine.stateName, "streaming")
    }

    func testASecondStreamOnTheConnectionIsCancelled() {
        var machine = Machine(limits: ServerLimits())
        read(get, into: &machine)
        read(get, into: &machine)
        XCTAssertEqual(machine.handle(.streamReady(id: 1)), [])
        let actions = machine.handle(.streamReady(id: 0))
        XCTAssertTrue(actions.contains(.cancel(id: 1)), "\(actions)")
        XCTAssertEqual(actions.last, .streamOpened(id: 0))
    }

    func testTheEndWritesTheLastChunkAndCloses() {
        var machine = Machine(limits: ServerLimits())
        read(get, into: &machine)
        _ = machine.handle(.streamReady(id: 0))
        let actions = machine.handle(.streamEnded)
        XCTAssertEqual(writes(actions), ["0\r\n\r\n"])
        XCTAssertEqual(actions.last, .lingeringClose)
        XCTAssertTrue(machine.isClosed)
        XCTAssertEqual(machine.handle(.streamEnded), [], "ended as the client left")
    }

    func testTheClientLeavingCancelsTheSubscription() {
        var machine = Machine(limits: ServerLimits())
        read(get, into: &machine)
        _ = machine.handle(.streamReady(id: 0))
        XCTAssertEqual(machine.handle(.peerClosed), [.cancel(id: 0), .close])
        XCTAssertTrue(machine.isClosed)
    }

    func testWhileStreamingParserEventsTimersAndDrainAreIgnored() {
        var machine = Machine(limits: ServerLimits())
        read(get, into: &machine)
        _ = machine.handle(.streamReady(id: 0))
        for event: Machine.Event in [.messageBegan, .urlBytes(3), .headerTimeout, .bodyTimeout, .idleTimeout, .drain] {
            XCTAssertEqual(machine.handle(event), [], "\(event)")
            XCTAssertEqual(machine.stateName, "streaming")
        }
    }
}
