import ReshapeProblem
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The connection state machine driven the way the server's parser adapter drives it, with
/// no sockets and no clock: timer expiry is just another event.
final class HTTPConnectionStateMachineTests: XCTestCase {
    private var connection = HTTPConnectionStateMachine(limits: ServerLimits())

    override func setUp() { connection = HTTPConnectionStateMachine(limits: ServerLimits()) }

    /// Feeds one whole request and returns every action it produced.
    @discardableResult
    private func send(_ request: HTTPRequest, bodyBytes: Int = 0) -> [HTTPConnectionStateMachine.Action] {
        var actions = connection.handle(.messageBegan)
        actions += connection.handle(.urlBytes(request.target.utf8.count))
        for header in request.headers {
            actions += connection.handle(.headerBytes(fields: 1, bytes: header.name.utf8.count))
            actions += connection.handle(.headerBytes(fields: 0, bytes: header.value.utf8.count))
        }
        actions += connection.handle(
            .headersComplete(
                RequestHead(
                    headers: request.headers, versionMajor: request.versionMajor,
                    versionMinor: request.versionMinor)))
        if bodyBytes > 0 { actions += connection.handle(.bodyBytes(bodyBytes)) }
        actions += connection.handle(.messageComplete(request))
        return actions
    }

    private func get(_ target: String, keepAlive: Bool = true, headers: [NameValue] = []) -> HTTPRequest {
        HTTPRequest(method: "GET", target: target, headers: headers, keepAlive: keepAlive)
    }

    private func writes(_ actions: [HTTPConnectionStateMachine.Action]) -> [String] {
        actions.compactMap { if case .write(let head, let body, _) = $0 { (head + body).text } else { nil } }
    }

    private func dispatchedIDs(_ actions: [HTTPConnectionStateMachine.Action]) -> [Int] {
        actions.compactMap { if case .dispatch(let id, _) = $0 { id } else { nil } }
    }

    private func ok(_ body: String) -> HTTPResponse { .json(200, Array(body.utf8)) }

    func testKeepAliveAnswersAndWaitsForTheNextRequest() {
        XCTAssertEqual(dispatchedIDs(send(get("/a"))), [0])
        let actions = connection.handle(.responseReady(id: 0, ok("[1]")))
        let written = writes(actions)
        XCTAssertEqual(written.count, 1)
        XCTAssertTrue(written[0].hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertTrue(written[0].contains("Content-Length: 3\r\n"))
        XCTAssertFalse(written[0].contains("Connection: close"))
        XCTAssertTrue(written[0].hasSuffix("\r\n\r\n[1]"))
        XCTAssertTrue(actions.contains(.startIdleTimer))
        XCTAssertFalse(actions.contains(.close))
        XCTAssertEqual(dispatchedIDs(send(get("/b"))), [1])
    }

    func testPipelinedResponsesAreWrittenInRequestOrderWhateverOrderTheyComplete() {
        XCTAssertEqual(dispatchedIDs(send(get("/first"))), [0])
        XCTAssertEqual(dispatchedIDs(send(get("/second"))), [1])
        XCTAssertEqual(dispatchedIDs(send(get("/third"))), [2])
        XCTAssertEqual(writes(connection.handle(.responseReady(id: 2, ok("3")))), [])
        XCTAssertEqual(writes(connection.handle(.responseReady(id: 1, ok("2")))), [])
        let written = writes(connection.handle(.responseReady(id: 0, ok("1"))))
        XCTAssertEqual(written.map { $0.last }, ["1", "2", "3"])
    }

    func testEachAnswersWriteNamesTheRequestItAnswers() {
        // The server holds an answer's memory until the write that carries it is done.
        send(get("/first"))
        send(get("/second"))
        XCTAssertEqual(connection.handle(.responseReady(id: 1, ok("2"))).filter(isWrite), [])
        let answers = connection.handle(.responseReady(id: 0, ok("1"))).compactMap { action -> Int? in
            if case .write(_, _, let answer) = action { answer } else { nil }
        }
        XCTAssertEqual(answers, [0, 1])
    }

    private func isWrite(_ action: HTTPConnectionStateMachine.Action) -> Bool {
        if case .write = action { true } else { false }
    }

    func testReadingPausesPastThePipelineDepthAndResumesWhenAnswered() {
        var limits = ServerLimits()
        limits.maxPipelinedRequests = 2
        connection = HTTPConnectionStateMachine(limits: limits)
        XCTAssertFalse(send(get("/1")).contains(.pauseReading))
        XCTAssertTrue(send(get("/2")).contains(.pauseReading))
        XCTAssertTrue(connection.handle(.responseReady(id: 0, ok("1"))).contains(.resumeReading))
    }

    func testHeadGetsTheGetContentLengthAndNoBody() {
        send(HTTPRequest(method: "HEAD", target: "/a"))
        let written = writes(connection.handle(.responseReady(id: 0, ok("[1,2]"))))
        XCTAssertEqual(written.count, 1)
        XCTAssertTrue(written[0].contains("Content-Length: 5\r\n"))
        XCTAssertTrue(written[0].hasSuffix("\r\n\r\n"))
    }

    func testARequestThatDoesNotKeepAliveIsAnsweredWithConnectionCloseAndClosed() {
        let actions = send(HTTPRequest(method: "GET", target: "/a", versionMinor: 0, keepAlive: false))
        XCTAssertTrue(actions.contains(.stopReading))
        let answer = connection.handle(.responseReady(id: 0, ok("1")))
        XCTAssertTrue(writes(answer)[0].contains("Connection: close\r\n"))
        // Read whole, but the client may have pipelined more, unread since reading stopped.
        XCTAssertEqual(answer.last, .lingeringClose)
        XCTAssertTrue(connection.isClosed)
    }

    func testKeepAliveFollowsVersionAndConnectionHeader() {
        let close = [NameValue(name: "connection", value: "Close")]
        let keep = [NameValue(name: "Connection", value: "Keep-Alive")]
        XCTAssertTrue(HTTPRequest.keepAlive(versionMajor: 1, versionMinor: 1, headers: []))
        XCTAssertFalse(HTTPRequest.keepAlive(versionMajor: 1, versionMinor: 1, headers: close))
        XCTAssertFalse(HTTPRequest.keepAlive(versionMajor: 1, versionMinor: 0, headers: []))
        XCTAssertTrue(HTTPRequest.keepAlive(versionMajor: 1, versionMinor: 0, headers: keep))
        XCTAssertFalse(HTTPRequest.keepAlive(versionMajor: 1, versionMinor: 0, headers: keep + close))
        XCTAssertFalse(HTTPRequest.keepAlive(versionMajor: 0, versionMinor: 9, headers: keep))
    }

    // MARK: - Limits

    private func assertRefused(
        _ actions: [HTTPConnectionStateMachine.Action], status: String, code: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let written = writes(actions)
        XCTAssertEqual(written.count, 1, file: file, line: line)
        XCTAssertTrue(
            written.first?.hasPrefix("HTTP/1.1 \(status)") ?? false, written.first ?? "nothing written", file: file,
            line: line)
        XCTAssertTrue(written.first?.contains("\"code\":\"\(code)\"") ?? false, file: file, line: line)
        XCTAssertTrue(written.first?.contains("Connection: close\r\n") ?? false, file: file, line: line)
        XCTAssertTrue(actions.contains(.stopReading), file: file, line: line)
        // The client may still be sending what was not read: the close lingers.
        XCTAssertEqual(actions.last, .lingeringClose, file: file, line: line)
        XCTAssertTrue(connection.isClosed, file: file, line: line)
    }

    func testURLPastTheLimitIs414() {
        _ = connection.handle(.messageBegan)
        XCTAssertEqual(connection.handle(.urlBytes(8 * 1024)), [])
        assertRefused(connection.handle(.urlBytes(1)), status: "414", code: "uri-too-long")
    }

    func testMoreThanAHundredHeadersIs431() {
        _ = connection.handle(.messageBegan)
        for _ in 0..<100 { XCTAssertEqual(connection.handle(.headerBytes(fields: 1, bytes: 2)), []) }
        assertRefused(connection.handle(.headerBytes(fields: 1, bytes: 2)), status: "431", code: "headers-too-large")
    }

    /// A read's pieces come as one event: the limits hold for the sum.
    func testOneEventOfManyFieldsIsCountedWhole() {
        _ = connection.handle(.messageBegan)
        XCTAssertEqual(connection.handle(.headerBytes(fields: 100, bytes: 200)), [])
        assertRefused(connection.handle(.headerBytes(fields: 1, bytes: 2)), status: "431", code: "headers-too-large")
        var fresh = HTTPConnectionStateMachine(limits: ServerLimits())
        _ = fresh.opened()
        _ = fresh.handle(.messageBegan)
        connection = fresh
        assertRefused(
            connection.handle(.headerBytes(fields: 101, bytes: 202)), status: "431", code: "headers-too-large")
    }

    func testAHeadPastSixteenKiBIs431() {
        _ = connection.handle(.messageBegan)
        _ = connection.handle(.urlBytes(10))
        _ = connection.handle(.headerBytes(fields: 1, bytes: 10))
        XCTAssertEqual(connection.handle(.headerBytes(fields: 0, bytes: 16 * 1024 - 20)), [])
        assertRefused(connection.handle(.headerBytes(fields: 0, bytes: 1)), status: "431", code: "headers-too-large")
    }

    func testABodyPastOneMiBIs413EvenWhenChunked() {
        _ = connection.handle(.messageBegan)
        _ = connection.handle(.headersComplete(RequestHead()))
        XCTAssertEqual(connection.handle(.bodyBytes(1024 * 1024)), [])
        assertRefused(connection.handle(.bodyBytes(1)), status: "413", code: "body-too-large")
        XCTAssertEqual(
            connection.handle(.messageComplete(HTTPRequest(method: "POST", target: "/a"))), [],
            "nothing is dispatched after the refusal")
    }

    // MARK: - Timeouts

    func testASlowHeadIsAnswered408AndClosed() {
        _ = connection.handle(.messageBegan)
        _ = connection.handle(.urlBytes(3))
        assertRefused(connection.handle(.headerTimeout), status: "408", code: "request-timeout")
    }

    func testAConnectionThatNeverSendsARequestTimesOut() {
        XCTAssertEqual(connection.opened(), [.startHeaderTimer])
        assertRefused(connection.handle(.headerTimeout), status: "408", code: "request-timeout")
    }

    func testHeaderTimerStartsWithEachRequestAndStopsWhenTheHeadIsComplete() {
        XCTAssertEqual(connection.handle(.messageBegan), [.stopIdleTimer, .startHeaderTimer])
        XCTAssertEqual(connection.handle(.headersComplete(RequestHead())), [.stopHeaderTimer])
    }

    func testAnIdleKeepAliveConnectionIsClosedSilently() {
        send(get("/a"))
        _ = connection.handle(.responseReady(id: 0, ok("1")))
        // A request may cross the close: it lingers.
        XCTAssertEqual(connection.handle(.idleTimeout), [.lingeringClose])
        XCTAssertTrue(connection.isClosed)
    }

    func testIdleTimeoutIsIgnoredWhileARequestIsInFlightOrArriving() {
        send(get("/a"))
        XCTAssertEqual(connection.handle(.idleTimeout), [])
        _ = connection.handle(.responseReady(id: 0, ok("1")))
        _ = connection.handle(.messageBegan)
        _ = connection.handle(.headersComplete(RequestHead()))
        XCTAssertEqual(connection.handle(.idleTimeout), [], "a body is still arriving")
        XCTAssertFalse(connection.isClosed)
    }

    // MARK: - Framing

    func testContentLengthWithTransferEncodingIs400() {
        let request = HTTPRequest(
            method: "POST", target: "/a",
            headers: [
                NameValue(name: "Content-Length", value: "5"), NameValue(name: "Transfer-Encoding", value: "chunked"),
            ])
        let actions = send(request)
        XCTAssertEqual(dispatchedIDs(actions), [])
        assertRefused(actions, status: "400", code: "bad-request")
    }

    func testConflictingContentLengthsAre400() {
        let request = HTTPRequest(
            method: "POST", target: "/a",
            headers: [
                NameValue(name: "Content-Length", value: "5"), NameValue(name: "content-length", value: "6"),
            ])
        assertRefused(send(request), status: "400", code: "bad-request")
    }

    func testAParserErrorIs400AndNamesTheReason() {
        _ = connection.handle(.messageBegan)
        let actions = connection.handle(.parseError(reason: "HPE_INVALID_CHUNK_SIZE"))
        assertRefused(actions, status: "400", code: "bad-request")
        XCTAssertTrue(writes(actions)[0].contains("HPE_INVALID_CHUNK_SIZE"))
    }

    func testTheParsersOwnHeadOverflowIs431() {
        _ = connection.handle(.messageBegan)
        assertRefused(
            connection.handle(.parseError(reason: "HPE_HEADER_OVERFLOW")), status: "431", code: "headers-too-large")
    }

    func testAnErrorAfterAPipelinedRequestWaitsForThatResponse() {
        send(get("/a"))
        _ = connection.handle(.messageBegan)
        let refused = connection.handle(.parseError(reason: "HPE_INVALID_METHOD"))
        XCTAssertEqual(writes(refused), [], "request 0 must be answered first")
        XCTAssertFalse(refused.contains(.close) || refused.contains(.lingeringClose))
        let actions = connection.handle(.responseReady(id: 0, ok("1")))
        let written = writes(actions)
        XCTAssertEqual(written.count, 2)
        XCTAssertTrue(written[0].hasPrefix("HTTP/1.1 200"))
        XCTAssertTrue(written[1].hasPrefix("HTTP/1.1 400"))
        XCTAssertEqual(actions.last, .lingeringClose)
    }

    // MARK: - Versions

    func testHTTP10And11AreServed() {
        XCTAssertEqual(
            dispatchedIDs(send(HTTPRequest(method: "GET", target: "/a", versionMajor: 1, versionMinor: 0))), [0])
        _ = connection.handle(.responseReady(id: 0, ok("1")))
        XCTAssertEqual(
            dispatchedIDs(send(HTTPRequest(method: "GET", target: "/a", versionMajor: 1, versionMinor: 1))), [1])
    }

    func testEveryOtherVersionIs505AndCloses() {
        for (major, minor) in [(0, 9), (1, 2), (2, 0), (3, 0), (9, 9)] {
            connection = HTTPConnectionStateMachine(limits: ServerLimits())
            let actions = send(HTTPRequest(method: "GET", target: "/users", versionMajor: major, versionMinor: minor))
            XCTAssertEqual(dispatchedIDs(actions), [], "HTTP/\(major).\(minor)")
            assertRefused(actions, status: "505", code: "http-version-not-supported")
            XCTAssertTrue(writes(actions)[0].contains("HTTP/\(major).\(minor) is not supported"))
        }
    }

    func testA505AfterAPipelinedRequestWaitsForThatResponse() {
        send(get("/a"))
        let refused = send(HTTPRequest(method: "GET", target: "/b", versionMajor: 2, versionMinor: 0))
        XCTAssertEqual(writes(refused), [], "request 0 must be answered first")
        let written = writes(connection.handle(.responseReady(id: 0, ok("1"))))
        XCTAssertEqual(written.count, 2)
        XCTAssertTrue(written[0].hasPrefix("HTTP/1.1 200"))
        XCTAssertTrue(written[1].hasPrefix("HTTP/1.1 505 HTTP Version Not Supported\r\n"))
        XCTAssertTrue(connection.isClosed)
    }

    // MARK: - Going away

    func testPeerClosingMidRequestCancelsItsUpstreamWork() {
        send(get("/a"))
        send(get("/b"))
        _ = connection.handle(.responseReady(id: 0, ok("1")))
        XCTAssertEqual(connection.handle(.peerClosed), [.cancel(id: 1), .close])
        XCTAssertEqual(
            connection.handle(.responseReady(id: 1, ok("2"))), [], "nothing is written to a closed connection")
    }

    func testDrainingFinishesInFlightRequestsThenCloses() {
        send(get("/a"))
        XCTAssertEqual(connection.handle(.drain), [])
        let actions = connection.handle(.responseReady(id: 0, ok("1")))
        XCTAssertTrue(writes(actions)[0].contains("Connection: close\r\n"))
        XCTAssertEqual(actions.last, .lingeringClose)
    }

    func testDrainingAnIdleConnectionClosesAtOnce() {
        XCTAssertEqual(connection.handle(.drain), [.lingeringClose])
    }

    func testTheOverloadAnswerIsACompleteClosing503() {
        let date = "Wed, 25 Nov 2026 19:00:00 GMT"
        let text = Problem.overloadedResponse.serialized(headOnly: false, keepAlive: false, date: date).text
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\nDate: \(date)\r\n"))
        XCTAssertTrue(text.contains("Cache-Control: no-store\r\n"))
        XCTAssertTrue(text.contains("Connection: close\r\n"))
        XCTAssertTrue(text.contains("\"code\":\"overloaded\""))
    }

    // MARK: - Request bodies: 100-continue and the body timeout

    private func post(_ target: String, length: Int, expect: Bool = true, minor: Int = 1) -> HTTPRequest {
        var headers = [NameValue(name: "Content-Length", value: String(length))]
        if expect { headers.append(NameValue(name: "Expect", value: "100-Continue")) }
        return HTTPRequest(
            method: "POST", target: target, versionMajor: 1, versionMinor: minor, headers: headers,
            body: Array(repeating: 0x61, count: length), keepAlive: true)
    }

    /// A request's head only, as the parser delivers it before the body.
    private func head(of request: HTTPRequest) -> [HTTPConnectionStateMachine.Action] {
        var actions = connection.handle(.messageBegan)
        actions += connection.handle(.urlBytes(request.target.utf8.count))
        actions += connection.handle(
            .headersComplete(
                RequestHead(
                    headers: request.headers, versionMajor: request.versionMajor,
                    versionMinor: request.versionMinor, target: Array(request.target.utf8))))
        return actions
    }

    func testWhileTheLoopRunsLateAHeadWithABodyIsShedBeforeTheBodyIsRead() {
        connection.shedding = true
        let actions = head(of: post("/users", length: 5))
        XCTAssertEqual(actions.first(where: { $0 == .shedAtHead }), .shedAtHead, "counted as shed")
        XCTAssertTrue(actions.contains(.stopReading), "the body is never read")
        XCTAssertEqual(actions.last, .lingeringClose)
        XCTAssertEqual(dispatchedIDs(actions), [])
        let written = writes(actions)
        XCTAssertEqual(written.count, 1, "no 100 Continue: only the refusal")
        XCTAssertTrue(written[0].hasPrefix("HTTP/1.1 503 "))
        XCTAssertTrue(written[0].contains("Retry-After: 1\r\n"))
        XCTAssertTrue(written[0].contains("Connection: close\r\n"))
        XCTAssertTrue(written[0].contains("\"code\":\"load-shed\""))
        XCTAssertEqual(connection.stateName, "closed")
    }

    func testWhileTheLoopRunsLateRequestsWithoutABodyAndAdminEndpointsAreRead() {
        connection.shedding = true
        // Without a body, the request is shed once routed, where the route is known.
        XCTAssertEqual(dispatchedIDs(send(get("/users"))), [0])
        _ = connection.handle(.responseReady(id: 0, ok("1")))
        // Health and metrics are never shed, whatever they carry.
        let admin = post("/_reshape/cache/purge", length: 3, expect: false)
        XCTAssertFalse(head(of: admin).contains(.shedAtHead))
        _ = connection.handle(.bodyBytes(3))
        XCTAssertEqual(dispatchedIDs(connection.handle(.messageComplete(admin))), [1])
        // Nor is a body whose head came before the loop ran late.
        connection = HTTPConnectionStateMachine(limits: ServerLimits())
        _ = head(of: post("/users", length: 3, expect: false))
        connection.shedding = true
        _ = connection.handle(.bodyBytes(3))
        XCTAssertEqual(dispatchedIDs(connection.handle(.messageComplete(post("/users", length: 3)))), [0])
    }

    func testExpectContinueIsAnsweredOnceTheHeadIsCompleteAndTheBodyTimerRuns() {
        let request = post("/users", length: 5)
        let actions = head(of: request)
        XCTAssertEqual(
            actions,
            [
                .stopIdleTimer, .startHeaderTimer, .stopHeaderTimer, .startBodyTimer,
                .write(head: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), body: []),
            ])
        XCTAssertEqual(connection.handle(.bodyBytes(5)), [])
        let done = connection.handle(.messageComplete(request))
        XCTAssertEqual(done, [.stopBodyTimer, .dispatch(id: 0, request)])
        XCTAssertEqual(writes(connection.handle(.responseReady(id: 0, ok("{}")))).count, 1, "no second 100 Continue")
    }

    func testNoContinueWithoutABodyOrToHTTP10() {
        XCTAssertEqual(writes(head(of: post("/a", length: 0))), [], "no body: nothing to invite")
        setUp()
        var old = post("/a", length: 3, minor: 0)
        old.keepAlive = false
        XCTAssertEqual(writes(head(of: old)), [], "never an interim answer to HTTP/1.0")
        setUp()
        XCTAssertEqual(writes(head(of: post("/a", length: 3, expect: false))), [])
        setUp()
        XCTAssertFalse(head(of: get("/a")).contains(.startBodyTimer), "a GET without a body starts no body timer")
    }

    func testContinueWaitsForEarlierPipelinedResponses() {
        XCTAssertEqual(dispatchedIDs(send(get("/first"))), [0])
        let request = post("/users", length: 2)
        XCTAssertEqual(writes(head(of: request)), [], "a 100 now would be read as /first's")
        let written = writes(connection.handle(.responseReady(id: 0, ok("1"))))
        XCTAssertEqual(written.count, 2)
        XCTAssertTrue(written[0].hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertEqual(written[1], "HTTP/1.1 100 Continue\r\n\r\n")
    }

    func testADeclaredBodyPastTheLimitIs413BeforeItIsSent() {
        assertRefused(head(of: post("/users", length: 1024 * 1024 + 1)), status: "413", code: "body-too-large")
    }

    func testABodyThatArrivesTooSlowlyIs408AndCloses() {
        let request = post("/users", length: 10, expect: false)
        XCTAssertTrue(head(of: request).contains(.startBodyTimer))
        XCTAssertEqual(connection.handle(.bodyBytes(3)), [])
        XCTAssertEqual(connection.handle(.headerTimeout), [], "the head is done: only the body timer counts now")
        let actions = connection.handle(.bodyTimeout)
        assertRefused(actions, status: "408", code: "request-timeout")
        XCTAssertTrue(writes(actions)[0].contains("request body did not arrive in time"))
        XCTAssertTrue(actions.contains(.stopBodyTimer))
    }

    func testABodyTimeoutAfterTheBodyArrivedIsIgnored() {
        let request = post("/users", length: 2, expect: false)
        _ = head(of: request)
        _ = connection.handle(.bodyBytes(2))
        _ = connection.handle(.messageComplete(request))
        XCTAssertEqual(connection.handle(.bodyTimeout), [])
        XCTAssertFalse(connection.isClosed)
    }
}
