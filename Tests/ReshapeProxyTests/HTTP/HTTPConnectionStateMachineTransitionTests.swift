import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// Every transition of `HTTPConnectionStateMachine`, state by state: the state it leads to and
/// the actions it asks for. The stories (pipelining, limits, 100-continue) are in
/// HTTPConnectionStateMachineTests; the events that trap are in ...DeathTests.
final class HTTPConnectionStateMachineTransitionTests: XCTestCase {
    typealias Machine = HTTPConnectionStateMachine

    private let get = HTTPRequest(method: "GET", target: "/a")
    private let closingGet = HTTPRequest(method: "GET", target: "/a", keepAlive: false)
    private let answer = HTTPResponse.json(200, Array("1".utf8))

    /// Fresh, as accepted.
    private func awaitingFirstRequest() -> Machine { Machine(limits: ServerLimits()) }

    /// After a request was read; `answered`: and its answer written.
    private func idle(answered: Bool = true) -> Machine {
        var machine = awaitingFirstRequest()
        read(get, into: &machine)
        if answered { _ = machine.handle(.responseReady(id: 0, answer)) }
        return machine
    }

    private func readingHead(after earlier: Machine? = nil) -> Machine {
        var machine = earlier ?? awaitingFirstRequest()
        _ = machine.handle(.messageBegan)
        return machine
    }

    private func readingBody(
        _ head: RequestHead = RequestHead(contentLength: 5),
        after earlier: Machine? = nil
    ) -> Machine {
        var machine = readingHead(after: earlier)
        _ = machine.handle(.headersComplete(head))
        return machine
    }

    /// A request that asked to close, not answered yet.
    private func readingDone() -> Machine {
        var machine = awaitingFirstRequest()
        read(closingGet, into: &machine)
        return machine
    }

    /// A request answered with a live stream, its head written.
    private func streaming() -> Machine {
        var machine = idle(answered: false)
        _ = machine.handle(.streamReady(id: 0))
        return machine
    }

    private func closed() -> Machine {
        var machine = awaitingFirstRequest()
        _ = machine.handle(.peerClosed)
        return machine
    }

    @discardableResult
    private func read(_ request: HTTPRequest, into machine: inout Machine) -> [Machine.Action] {
        machine.handle(.messageBegan) + machine.handle(.headersComplete(RequestHead()))
            + machine.handle(.messageComplete(request))
    }

    private func writes(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { if case .write(let head, let body, _) = $0 { (head + body).text } else { nil } }
    }

    /// `event` changes nothing: no action, same state.
    private func assertIgnored(
        _ event: Machine.Event, in machine: Machine,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var machine = machine
        let before = machine.state
        XCTAssertEqual(machine.handle(event), [], "\(event) in \(machine.stateName)", file: file, line: line)
        XCTAssertEqual(machine.state, before, "\(event) in \(machine.stateName)", file: file, line: line)
    }

    /// `event` answers with an error (`status`) and closes, with nothing else to write first.
    private func assertRefusedAndClosed(
        _ event: Machine.Event, in machine: Machine, status: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var machine = machine
        let actions = machine.handle(event)
        XCTAssertEqual(writes(actions).map { String($0.prefix(12)) }, ["HTTP/1.1 \(status)"], file: file, line: line)
        XCTAssertEqual(actions.first, .stopReading, file: file, line: line)
        XCTAssertEqual(actions.last, .lingeringClose, file: file, line: line)
        XCTAssertEqual(machine.stateName, "closed", file: file, line: line)
    }

    /// One machine in each state, in the order of `StateName`.
    private func oneInEachState() -> [Machine] {
        [awaitingFirstRequest(), idle(), readingHead(), readingBody(), readingDone(), streaming(), closed()]
    }

    func testStateNamesAreTheCaseNamesAndEveryOneIsReached() {
        XCTAssertEqual(oneInEachState().map(\.stateName), Machine.StateName.allCases.map(\.rawValue))
    }

    // MARK: - awaitingFirstRequest

    func testOpenedStartsTheHeaderTimer() {
        var machine = awaitingFirstRequest()
        XCTAssertEqual(machine.opened(), [.startHeaderTimer])
        XCTAssertEqual(machine.state, .awaitingFirstRequest)
    }

    func testARefusalClosesAndStopsTheHeaderTimer() {
        var machine = awaitingFirstRequest()
        _ = machine.opened()
        XCTAssertEqual(machine.refused(), [.stopReading, .stopHeaderTimer])
        XCTAssertEqual(machine.state, .closed)
        XCTAssertEqual(machine.handle(.headerTimeout), [], "a timer that fires anyway answers nothing")
    }

    func testFirstRequestBeginning() {
        var machine = awaitingFirstRequest()
        XCTAssertEqual(machine.handle(.messageBegan), [.stopIdleTimer, .startHeaderTimer])
        XCTAssertEqual(machine.state, .readingHead(Machine.RequestCounts()))
    }

    func testBeforeTheFirstRequestTimeoutsErrorsAndDrainClose() {
        assertRefusedAndClosed(.headerTimeout, in: awaitingFirstRequest(), status: "408")
        assertRefusedAndClosed(.parseError(reason: "HPE_INVALID_METHOD"), in: awaitingFirstRequest(), status: "400")
        // The server's closes linger (a request may cross them); the client's end does not.
        for (event, close): (Machine.Event, Machine.Action) in [
            (.idleTimeout, .lingeringClose), (.drain, .lingeringClose), (.peerClosed, .close),
        ] {
            var machine = awaitingFirstRequest()
            XCTAssertEqual(machine.handle(event), [close], "\(event)")
            XCTAssertEqual(machine.state, .closed)
        }
        assertIgnored(.bodyTimeout, in: awaitingFirstRequest())
    }

    // MARK: - idle

    func testIdleBeginsTheNextRequest() {
        var machine = idle()
        XCTAssertEqual(machine.handle(.messageBegan), [.stopIdleTimer, .startHeaderTimer])
        XCTAssertEqual(machine.stateName, "readingHead")
    }

    func testIdleWritesAnswersInOrderAndStartsTheIdleTimerWhenNoneIsLeft() {
        var machine = idle(answered: false)
        let actions = machine.handle(.responseReady(id: 0, answer))
        XCTAssertEqual(writes(actions).count, 1)
        XCTAssertEqual(actions.last, .startIdleTimer)
        XCTAssertEqual(machine.state, .idle)
    }

    func testIdleTimeoutClosesOnlyWithNothingOwed() {
        var machine = idle()
        XCTAssertEqual(machine.handle(.idleTimeout), [.lingeringClose])
        XCTAssertEqual(machine.state, .closed)
        assertIgnored(.idleTimeout, in: idle(answered: false))
    }

    func testDrainClosesAnIdleConnectionOrMarksTheNextAnswerClosing() {
        var machine = idle()
        XCTAssertEqual(machine.handle(.drain), [.lingeringClose])
        XCTAssertEqual(machine.state, .closed)
        machine = idle(answered: false)
        XCTAssertEqual(machine.handle(.drain), [])
        XCTAssertEqual(machine.state, .idle)
        let actions = machine.handle(.responseReady(id: 0, answer))
        XCTAssertTrue(writes(actions)[0].contains("Connection: close\r\n"))
        XCTAssertEqual(machine.state, .closed)
    }

    func testIdleErrorWaitsForEarlierAnswers() {
        var machine = idle(answered: false)
        XCTAssertEqual(machine.handle(.parseError(reason: "HPE_INVALID_METHOD")), [.stopReading, .stopHeaderTimer])
        XCTAssertEqual(machine.state, .readingDone)
        assertRefusedAndClosed(.parseError(reason: "HPE_INVALID_METHOD"), in: idle(), status: "400")
    }

    func testIdlePeerClosedCancelsWhatIsUnanswered() {
        var machine = idle(answered: false)
        XCTAssertEqual(machine.handle(.peerClosed), [.cancel(id: 0), .close])
        XCTAssertEqual(machine.state, .closed)
    }

    func testStaleTimersInIdleAreIgnored() {
        assertIgnored(.headerTimeout, in: idle())
        assertIgnored(.bodyTimeout, in: idle())
    }

    // MARK: - readingHead

    func testHeadPiecesAreCounted() {
        var machine = readingHead()
        XCTAssertEqual(machine.handle(.urlBytes(3)), [])
        XCTAssertEqual(machine.handle(.headerBytes(fields: 1, bytes: 4)), [])
        XCTAssertEqual(machine.handle(.headerBytes(fields: 0, bytes: 5)), [])
        XCTAssertEqual(machine.state, .readingHead(Machine.RequestCounts(urlBytes: 3, headerBytes: 12, headerCount: 1)))
    }

    func testACompleteHeadSaysWhatBodyFollows() {
        var machine = readingHead()
        XCTAssertEqual(machine.handle(.headersComplete(RequestHead())), [.stopHeaderTimer])
        XCTAssertEqual(machine.state, .readingBody(Machine.RequestCounts(), .none))
        machine = readingHead()
        XCTAssertEqual(
            machine.handle(.headersComplete(RequestHead(chunked: true))),
            [.stopHeaderTimer, .startBodyTimer])
        XCTAssertEqual(machine.state, .readingBody(Machine.RequestCounts(), .body))
        machine = readingHead(after: idle(answered: false))
        let head = RequestHead(contentLength: 3, expectsContinue: true)
        XCTAssertEqual(
            machine.handle(.headersComplete(head)), [.stopHeaderTimer, .startBodyTimer],
            "no 100 Continue: an answer is owed first")
        XCTAssertEqual(machine.state, .readingBody(Machine.RequestCounts(), .bodyAfterContinue))
    }

    func testHeadRefusals() {
        assertRefusedAndClosed(.headerTimeout, in: readingHead(), status: "408")
        assertRefusedAndClosed(.parseError(reason: "HPE_INVALID_URL"), in: readingHead(), status: "400")
        assertRefusedAndClosed(.headersComplete(RequestHead(contentLength: 1 << 30)), in: readingHead(), status: "413")
        assertRefusedAndClosed(.urlBytes(8 * 1024 + 1), in: readingHead(), status: "414")
        assertRefusedAndClosed(.headerBytes(fields: 0, bytes: 16 * 1024 + 1), in: readingHead(), status: "431")
    }

    func testAnEarlierAnswerIsWrittenWhileAHeadArrives() {
        var machine = readingHead(after: idle(answered: false))
        let actions = machine.handle(.responseReady(id: 0, answer))
        XCTAssertEqual(writes(actions).count, 1)
        XCTAssertFalse(actions.contains(.startIdleTimer), "a request is arriving")
        XCTAssertEqual(machine.stateName, "readingHead")
    }

    func testDrainWhileAHeadArrivesLetsItBeAnsweredThenCloses() {
        var machine = readingHead()
        XCTAssertEqual(machine.handle(.drain), [])
        XCTAssertEqual(machine.stateName, "readingHead")
        let actions = machine.handle(.headersComplete(RequestHead())) + machine.handle(.messageComplete(get))
        XCTAssertEqual(
            actions, [.stopHeaderTimer, .dispatch(id: 0, get), .stopReading], "no keep-alive while draining")
        XCTAssertEqual(machine.state, .readingDone)
    }

    func testReadingHeadIgnoresBodyAndIdleTimersAndClosesOnPeerClosed() {
        assertIgnored(.bodyTimeout, in: readingHead())
        assertIgnored(.idleTimeout, in: readingHead())
        var machine = readingHead()
        XCTAssertEqual(machine.handle(.peerClosed), [.close])
        XCTAssertEqual(machine.state, .closed)
    }

    // MARK: - readingBody

    func testBodyAndTrailersAreCounted() {
        var machine = readingBody(RequestHead(chunked: true))
        XCTAssertEqual(machine.handle(.bodyBytes(7)), [])
        XCTAssertEqual(machine.handle(.headerBytes(fields: 1, bytes: 2)), [], "a trailer")
        XCTAssertEqual(machine.handle(.headerBytes(fields: 0, bytes: 3)), [])
        let counts = Machine.RequestCounts(headerBytes: 5, headerCount: 1, bodyBytes: 7)
        XCTAssertEqual(machine.state, .readingBody(counts, .body))
    }

    func testACompleteMessageIsDispatched() {
        var machine = readingBody()
        XCTAssertEqual(machine.handle(.messageComplete(get)), [.stopBodyTimer, .dispatch(id: 0, get)])
        XCTAssertEqual(machine.state, .idle)
        machine = readingBody(RequestHead())
        XCTAssertEqual(machine.handle(.messageComplete(closingGet)), [.dispatch(id: 0, closingGet), .stopReading])
        XCTAssertEqual(machine.state, .readingDone)
    }

    func testACompleteMessagePastThePipelineDepthPausesReading() {
        var limits = ServerLimits()
        limits.maxPipelinedRequests = 1
        var machine = Machine(limits: limits)
        XCTAssertEqual(read(get, into: &machine).last, .pauseReading)
        XCTAssertEqual(machine.state, .idle)
    }

    func testBodyRefusals() {
        assertRefusedAndClosed(.bodyTimeout, in: readingBody(), status: "408")
        assertRefusedAndClosed(.bodyBytes(1024 * 1024 + 1), in: readingBody(RequestHead(chunked: true)), status: "413")
        assertRefusedAndClosed(.parseError(reason: "HPE_INVALID_CHUNK_SIZE"), in: readingBody(), status: "400")
        let http2 = HTTPRequest(method: "GET", target: "/", versionMajor: 2, versionMinor: 0)
        assertRefusedAndClosed(.messageComplete(http2), in: readingBody(), status: "505")
        let framing = [NameValue(name: "Content-Length", value: "1"), NameValue(name: "Content-Length", value: "2")]
        assertRefusedAndClosed(
            .messageComplete(HTTPRequest(method: "POST", target: "/", headers: framing)),
            in: readingBody(RequestHead()), status: "400")
        var machine = readingBody()
        XCTAssertTrue(machine.handle(.bodyTimeout).contains(.stopBodyTimer))
    }

    func testContinueIsWrittenWhenTheEarlierAnswerIs() {
        var machine = readingBody(RequestHead(contentLength: 3, expectsContinue: true), after: idle(answered: false))
        let written = writes(machine.handle(.responseReady(id: 0, answer)))
        XCTAssertEqual(written.last, "HTTP/1.1 100 Continue\r\n\r\n")
        XCTAssertEqual(machine.state, .readingBody(Machine.RequestCounts(), .body))
    }

    func testReadingBodyIgnoresHeaderAndIdleTimersAndAnUntimedBodyTimeout() {
        assertIgnored(.headerTimeout, in: readingBody())
        assertIgnored(.idleTimeout, in: readingBody())
        assertIgnored(.bodyTimeout, in: readingBody(RequestHead()))
        var machine = readingBody()
        XCTAssertEqual(machine.handle(.drain), [])
        XCTAssertEqual(machine.stateName, "readingBody")
        XCTAssertEqual(machine.handle(.peerClosed), [.close])
        XCTAssertEqual(machine.state, .closed)
    }

    // MARK: - readingDone

    func testAfterReadingIsDoneTheParsersLateEventsAreIgnored() {
        let late: [Machine.Event] = [
            .messageBegan, .urlBytes(1), .headerBytes(fields: 1, bytes: 1), .headerBytes(fields: 0, bytes: 1),
            .headersComplete(RequestHead()), .bodyBytes(1), .messageComplete(get),
            .parseError(reason: "HPE_INVALID_METHOD"),
        ]
        for event in late { assertIgnored(event, in: readingDone()) }
        for event: Machine.Event in [.headerTimeout, .bodyTimeout, .idleTimeout] {
            assertIgnored(event, in: readingDone())
        }
    }

    func testReadingDoneWritesTheLastAnswerAndCloses() {
        var machine = readingDone()
        let actions = machine.handle(.responseReady(id: 0, answer))
        XCTAssertTrue(writes(actions)[0].contains("Connection: close\r\n"))
        XCTAssertEqual(actions.last, .lingeringClose)
        XCTAssertEqual(machine.state, .closed)
        machine = readingDone()
        XCTAssertEqual(machine.handle(.drain), [])
        XCTAssertEqual(machine.state, .readingDone)
        XCTAssertEqual(machine.handle(.peerClosed), [.cancel(id: 0), .close])
        XCTAssertEqual(machine.state, .closed)
    }

    // MARK: - closed

    func testAfterCloseEveryEventIsIgnored() {
        let events: [Machine.Event] = [
            .messageBegan, .urlBytes(1), .headerBytes(fields: 1, bytes: 1), .headerBytes(fields: 0, bytes: 1),
            .headersComplete(RequestHead()), .bodyBytes(1), .messageComplete(get),
            .parseError(reason: "x"), .peerClosed, .responseReady(id: 0, answer),
            .headerTimeout, .bodyTimeout, .idleTimeout, .drain,
        ]
        for event in events { assertIgnored(event, in: closed()) }
        var machine = closed()
        XCTAssertEqual(machine.opened(), [])
        XCTAssertFalse(machine.readsRequests)
    }

    // MARK: - Every state

    func testASendTimeoutEndsTheConnectionAtOnceInEveryState() {
        // Written bytes made no progress for the idle timeout: the client reads nothing, and
        // would hold its answers (and their memory) for ever.
        for var machine in oneInEachState() {
            let name = machine.stateName
            let actions = machine.handle(.sendTimeout)
            XCTAssertEqual(actions.last, .abort, name)
            XCTAssertFalse(actions.contains(.close), "\(name): not after the writes, which never end")
            XCTAssertEqual(machine.state, .closed, name)
        }
        // What still works upstream is cancelled.
        var machine = idle(answered: false)
        XCTAssertEqual(machine.handle(.sendTimeout), [.cancel(id: 0), .abort])
        machine = readingDone()
        XCTAssertEqual(machine.handle(.sendTimeout), [.cancel(id: 0), .abort])
        machine = streaming()
        XCTAssertEqual(machine.handle(.sendTimeout), [.cancel(id: 0), .abort])
        machine = idle()
        XCTAssertEqual(machine.handle(.sendTimeout), [.abort], "nothing owed: only writes to drop")
        // Closed after its last answer, it would wait for that answer's write for ever.
        machine = readingDone()
        XCTAssertEqual(machine.handle(.responseReady(id: 0, answer)).last, .lingeringClose)
        XCTAssertEqual(machine.handle(.sendTimeout), [.abort])
    }

    func testReadsRequestsUntilReadingIsDone() {
        XCTAssertEqual(oneInEachState().map(\.readsRequests), [true, true, true, true, false, false, false])
    }
}
