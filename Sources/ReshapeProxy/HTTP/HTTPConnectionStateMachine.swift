import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// One client connection's protocol state: events from the parser and the socket go in,
/// actions for the server to execute come out. No I/O here, so every rule (ordering,
/// keep-alive, limits, timeouts) is tested without sockets; `ClientConnection` is its driver.
///
/// Reading requests is one `State`; the answers owed are a queue beside it (`slots`). Parser
/// events out of http_parser's order trap (`impossible`); events that can come late (bytes
/// read before reading stopped, a timer that outlived its phase, an answer after the client
/// left) are ignored where documented.
package struct HTTPConnectionStateMachine: Sendable {
    /// Where the connection is in reading requests.
    enum State: Sendable, Equatable {
        /// Accepted, no request begun: the header timer runs from the start, so a client that
        /// connects and never finishes a request head is cut off like a slow one.
        case awaitingFirstRequest
        /// Between requests; earlier ones may still await their answers (if none does, the idle timer runs).
        case idle
        /// A request head is arriving, under the header timer.
        case readingHead(RequestCounts)
        /// The head is complete; its body (if any) and chunked trailers are arriving.
        case readingBody(RequestCounts, BodyPromise)
        /// No more requests are read (the last one asked to close, or one was refused): the
        /// queued answers are written in order and the last one closes the connection.
        case readingDone
        /// The answer to request `id` is a live stream, its head written: no more requests are
        /// read, but the socket is watched so the client leaving is noticed (`peerClosed`).
        case streaming(id: Int)
        /// Closed: whatever still arrives is late and ignored.
        case closed
    }

    /// What a complete head promised about its body.
    enum BodyPromise: Sendable, Equatable {
        /// No body: the parser ends the message next, and no body timer runs.
        case none
        /// A body, timed by the body timer.
        case body
        /// A body the client sends once it gets `100 Continue`, still owed: it waits for the
        /// earlier answers to be written (an interim answer before them would be read as theirs).
        case bodyAfterContinue
    }

    /// A request read and not yet written, and what it is answered with so far.
    struct Slot {
        let id: Int
        let headOnly: Bool
        let keepAlive: Bool
        var answer = Answer.pending

        enum Answer {
            /// Dispatched; its answer has not come back yet.
            case pending
            /// Its answer, written when its turn comes.
            case response(RenderedAnswer)
            /// A live stream (`streamReady`), whose head is written when its turn comes, with
            /// these headers besides its own (CORS).
            case stream([NameValue])
        }

        var isPending: Bool { if case .pending = answer { true } else { false } }

        /// Its request still has work upstream (a fetch, or a stream's subscription), which
        /// the client leaving cancels.
        var hasWork: Bool { if case .response = answer { false } else { true } }
    }

    package let limits: ServerLimits
    var state: State = .awaitingFirstRequest
    /// Requests read and not yet written, in order. Beside `state`, not in it: pipelined
    /// requests await their answers while the next is read, and after reading is done.
    var slots: [Slot] = []
    private var nextID = 0
    /// Reading paused at the pipelining depth (backpressure). Beside `state`: the parser still
    /// delivers the rest of a buffer it was given, so any reading state can be paused.
    var paused = false
    /// The server is shutting down. Beside `state`: it can come in any state, and from then on
    /// no answer keeps the connection alive and it closes as soon as it is idle.
    private var draining = false
    /// The `Date` every answer written from now on carries. The machine has no clock: the
    /// driver keeps this current (formatting it at most once a second); empty sends none.
    package var date = ""
    /// The worker's loop runs late (`--max-loop-lag`): a head that promises a body is answered
    /// `503 load-shed` before the body is read (the connection then closes: the unread body
    /// would be taken for the next request). Kept current by the driver, like `date`.
    /// Requests without a body are shed once routed (`RequestLifecycle.begin`), where their
    /// route is known.
    package var shedding = false

    package init(limits: ServerLimits) {
        self.limits = limits
    }

    package var isClosed: Bool { if case .closed = state { true } else { false } }

    /// Whether requests are still read; once false, the driver stops parsing and never reads again.
    package var readsRequests: Bool {
        switch state {
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody: true
        case .readingDone, .streaming, .closed: false
        }
    }

    /// `readsRequests`, asked in place: a connection asks after every parser event, and calling
    /// a getter of another module on a class's stored machine copies the whole machine first.
    package mutating func readsRequestsInPlace() -> Bool { readsRequests }

    /// Whether a live stream's head is written: its events may be written now.
    package var isStreaming: Bool { if case .streaming = state { true } else { false } }

    /// Actions for a freshly accepted connection: the header timer runs from the start.
    package mutating func opened() -> [Action] {
        switch state {
        case .awaitingFirstRequest: return [.startHeaderTimer]
        // Drained before it was opened: nothing to time.
        case .closed: return []
        case .idle, .readingHead, .readingBody, .readingDone, .streaming: impossible("opened", in: stateName)
        }
    }

    /// The worker refuses the connection before reading anything (its connection cap): the
    /// driver writes its prebuilt answer and closes. Nothing is read or timed from here, so no
    /// timer can later answer a refused connection.
    package mutating func refused() -> [Action] {
        switch state {
        case .awaitingFirstRequest:
            state = .closed
            return [.stopReading, .stopHeaderTimer]
        case .idle, .readingHead, .readingBody, .readingDone, .streaming, .closed: impossible("refused", in: stateName)
        }
    }

    package mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .messageBegan: return messageBegan()
        case .urlBytes(let count): return urlBytes(count)
        case .headerBytes(let fields, let bytes): return headerBytes(bytes, fields: fields)
        case .headersComplete(let head): return headersComplete(head)
        case .bodyBytes(let count): return bodyBytes(count)
        case .messageComplete(let request): return messageComplete(request)
        case .parseError(let reason): return parseError(reason)
        case .peerClosed: return peerClosed()
        case .responseReady(let id, let response): return responseReady(id, RenderedAnswer(response))
        case .renderedReady(let id, let answer): return responseReady(id, answer)
        case .streamReady(let id, let headers): return streamReady(id, headers: headers)
        case .streamEnded: return streamEnded()
        case .headerTimeout: return headerTimeout()
        case .bodyTimeout: return bodyTimeout()
        case .idleTimeout: return idleTimeout()
        case .sendTimeout: return sendTimeout()
        case .drain: return drain()
        }
    }

    // MARK: - Parser events
    // In `readingDone` and `closed`: the rest of a buffer parsed as reading stopped, ignored.

    private mutating func messageBegan() -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle:
            state = .readingHead(RequestCounts())
            return [.stopIdleTimer, .startHeaderTimer]
        case .readingHead, .readingBody: impossible("messageBegan", in: stateName)
        case .readingDone, .streaming, .closed: return []
        }
    }

    private mutating func urlBytes(_ count: Int) -> [Action] {
        switch state {
        case .readingHead(var counts):
            counts.urlBytes += count
            counts.headerBytes += count
            state = .readingHead(counts)
            if counts.urlBytes > limits.maxURLBytes { return fail(.uriTooLong(limit: limits.maxURLBytes)) }
            return checkHeaderBytes(counts)
        case .awaitingFirstRequest, .idle, .readingBody: impossible("urlBytes", in: stateName)
        case .readingDone, .streaming, .closed: return []
        }
    }

    /// Header name and value pieces (`fields` of them new fields); after the head, of a
    /// chunked trailer.
    private mutating func headerBytes(_ count: Int, fields: Int) -> [Action] {
        let counts: RequestCounts
        switch state {
        case .readingHead(let current):
            counts = current.adding(headerBytes: count, fields: fields)
            state = .readingHead(counts)
        case .readingBody(let current, let promise):
            counts = current.adding(headerBytes: count, fields: fields)
            state = .readingBody(counts, promise)
        case .awaitingFirstRequest, .idle: impossible("headerBytes", in: stateName)
        case .readingDone, .streaming, .closed: return []
        }
        if fields > 0 && counts.headerCount > limits.maxHeaderCount {
            return fail(.headersTooLarge("more than \(limits.maxHeaderCount) header fields"))
        }
        return checkHeaderBytes(counts)
    }

    private mutating func headersComplete(_ head: RequestHead) -> [Action] {
        switch state {
        case .readingHead(let counts):
            // A declared length past the limit is refused now, before the client sends it
            // (or waits for a `100 Continue` that would only invite it).
            if let length = head.contentLength, length > limits.maxBodyBytes {
                return fail(.bodyTooLarge(limit: limits.maxBodyBytes))
            }
            if shedding, head.bodyExpected, !head.toAdmin {
                return [.shedAtHead] + fail(Problem.loadShed(retryAfter: 1, detail: Problem.loopLagDetail))
            }
            guard head.bodyExpected else {
                state = .readingBody(counts, .none)
                return [.stopHeaderTimer]
            }
            guard head.expectsContinue else {
                state = .readingBody(counts, .body)
                return [.stopHeaderTimer, .startBodyTimer]
            }
            state = .readingBody(counts, .bodyAfterContinue)
            return [.stopHeaderTimer, .startBodyTimer] + writeContinueIfDue()
        // Trailers end without a second `headersComplete`.
        case .awaitingFirstRequest, .idle, .readingBody: impossible("headersComplete", in: stateName)
        case .readingDone, .streaming, .closed: return []
        }
    }

    private mutating func bodyBytes(_ count: Int) -> [Action] {
        switch state {
        // Counted as it grows: a chunked body has no length to refuse up front.
        case .readingBody(var counts, let promise):
            counts.bodyBytes += count
            state = .readingBody(counts, promise)
            if counts.bodyBytes > limits.maxBodyBytes { return fail(.bodyTooLarge(limit: limits.maxBodyBytes)) }
            return []
        case .awaitingFirstRequest, .idle, .readingHead: impossible("bodyBytes", in: stateName)
        case .readingDone, .streaming, .closed: return []
        }
    }

    private mutating func messageComplete(_ request: HTTPRequest) -> [Action] {
        switch state {
        case .readingBody(_, let promise):
            // http_parser accepts any digit pair as a version (and reads a request line without
            // one as 0.9); only the two versions this server speaks are answered.
            guard request.versionMajor == 1, request.versionMinor <= 1 else {
                return fail(.httpVersionNotSupported(major: request.versionMajor, minor: request.versionMinor))
            }
            if let ambiguity = RequestFraming.ambiguity(in: request.headers) {
                return fail(.badRequest("ambiguous message framing: \(ambiguity)"))
            }
            let id = nextID
            nextID += 1
            let keepAlive = request.keepAlive && !draining
            slots.append(Slot(id: id, headOnly: request.method == "HEAD", keepAlive: keepAlive))
            var actions: [Action] =
                promise == .none
                ? [.dispatch(id: id, request)]
                : [.stopBodyTimer, .dispatch(id: id, request)]
            if !keepAlive {
                state = .readingDone
                actions.append(.stopReading)
            } else {
                state = .idle
                if slots.count >= limits.maxPipelinedRequests && !paused {
                    paused = true
                    actions.append(.pauseReading)
                }
            }
            return actions
        // http_parser completes a message only after its head.
        case .awaitingFirstRequest, .idle, .readingHead: impossible("messageComplete", in: stateName)
        case .readingDone, .streaming, .closed: return []
        }
    }

    private mutating func parseError(_ reason: String) -> [Action] {
        switch state {
        // Before a message too: bytes that cannot start a request are refused before it begins.
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody:
            // http_parser's own head limit (80 KiB as Debian builds it) is still "too large",
            // whatever our configured limit; everything else it refuses is malformed.
            if reason == "HPE_HEADER_OVERFLOW" {
                return fail(.headersTooLarge("the request head is larger than the parser accepts"))
            }
            return fail(.badRequest("the request is not valid HTTP/1.1 (\(reason))"))
        case .readingDone, .streaming, .closed: return []
        }
    }

    private mutating func checkHeaderBytes(_ counts: RequestCounts) -> [Action] {
        guard counts.headerBytes > limits.maxHeaderBytes else { return [] }
        return fail(.headersTooLarge("the request head exceeds \(limits.maxHeaderBytes) bytes"))
    }

    // MARK: - Socket, answers and timers

    private mutating func peerClosed() -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody, .readingDone:
            state = .closed
            return slots.filter(\.hasWork).map { .cancel(id: $0.id) } + [.close]
        case .streaming(let id):
            state = .closed
            return [.cancel(id: id), .close]
        // The socket reports its end after the connection closed it.
        case .closed: return []
        }
    }

    private mutating func responseReady(_ id: Int, _ response: RenderedAnswer) -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody, .readingDone:
            // Each dispatched request is answered once, unless cancelled (which closes).
            guard let index = slots.firstIndex(where: { $0.id == id }), slots[index].isPending else {
                impossible("responseReady(id: \(id))", in: stateName)
            }
            slots[index].answer = .response(response)
            return flush()
        // Answered as the client left, before the cancel reached it.
        case .closed: return []
        // Every other request was cancelled as the stream's head was written.
        case .streaming: impossible("responseReady(id: \(id))", in: stateName)
        }
    }

    // A timer event outside its phase is stale (the body timer shares the header timer's handle): ignored.

    private mutating func headerTimeout() -> [Action] {
        switch state {
        case .awaitingFirstRequest, .readingHead: return fail(.headerTimeout)
        case .idle, .readingBody, .readingDone, .streaming, .closed: return []
        }
    }

    private mutating func bodyTimeout() -> [Action] {
        switch state {
        case .readingBody(_, .body), .readingBody(_, .bodyAfterContinue): return fail(.bodyTimeout)
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody(_, .none), .readingDone, .streaming, .closed:
            return []
        }
    }

    private mutating func idleTimeout() -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle:
            guard slots.isEmpty else { return [] }
            state = .closed
            return [.lingeringClose]
        case .readingHead, .readingBody, .readingDone, .streaming, .closed: return []
        }
    }

    /// A client that reads nothing would hold its answers, and their memory, for ever: the
    /// connection ends now, in any state, its requests' work cancelled. Closed already, it
    /// waits for writes that will never be done: they are dropped.
    private mutating func sendTimeout() -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody, .readingDone:
            state = .closed
            return slots.filter(\.hasWork).map { .cancel(id: $0.id) } + [.abort]
        case .streaming(let id):
            state = .closed
            return [.cancel(id: id), .abort]
        case .closed: return [.abort]
        }
    }

    private mutating func drain() -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle:
            draining = true
            guard slots.isEmpty else { return [] }
            state = .closed
            return [.lingeringClose]
        // What is being read is still answered, with `Connection: close`.
        case .readingHead, .readingBody, .readingDone:
            draining = true
            return []
        // The server ends its streams itself, each with a last event (`streamEnded`).
        case .streaming:
            draining = true
            return []
        case .closed: return []
        }
    }

    // MARK: - Answers

    /// Answers the broken request in turn (after earlier pipelined ones) and ends the connection.
    private mutating func fail(_ problem: Problem) -> [Action] {
        var actions: [Action] = [.stopReading, .stopHeaderTimer]
        switch state {
        case .readingBody(_, .body), .readingBody(_, .bodyAfterContinue): actions.append(.stopBodyTimer)
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody(_, .none): break
        // Refused already: one answer ends a connection.
        case .readingDone, .streaming, .closed: return []
        }
        state = .readingDone
        let id = nextID
        nextID += 1
        slots.append(
            Slot(id: id, headOnly: false, keepAlive: false, answer: .response(RenderedAnswer(problem.response))))
        return actions + flush()
    }

    /// `HTTP/1.1 100 Continue`, when owed and nothing is waiting to be written before it.
    private mutating func writeContinueIfDue() -> [Action] {
        guard case .readingBody(let counts, .bodyAfterContinue) = state, slots.isEmpty else { return [] }
        state = .readingBody(counts, .body)
        return [.write(head: HTTPConnectionStateMachine.continueHead, body: [])]
    }

    static let continueHead = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Writes every response that is next in order.
    mutating func flush() -> [Action] {
        var actions: [Action] = []
        writing: while let first = slots.first {
            switch first.answer {
            case .pending:
                break writing
            case .stream(let headers):
                slots.removeFirst()
                return actions + openStream(first.id, headers: headers)
            case .response(let response):
                slots.removeFirst()
                let keepAlive = first.keepAlive && !draining
                actions.append(
                    .write(
                        head: response.head(keepAlive: keepAlive, date: date),
                        body: first.headOnly ? [] : response.body, answer: first.id))
                if !keepAlive {
                    state = .closed
                    actions += slots.filter(\.hasWork).map { .cancel(id: $0.id) }
                    actions.append(.lingeringClose)
                    return actions
                }
            }
        }
        if paused && slots.count < limits.maxPipelinedRequests {
            paused = false
            actions.append(.resumeReading)
        }
        guard slots.isEmpty else { return actions }
        switch state {
        case .readingBody: actions += writeContinueIfDue()
        case .awaitingFirstRequest, .idle:
            if draining {
                state = .closed
                actions.append(.lingeringClose)
            } else {
                actions.append(.startIdleTimer)
            }
        // `readingDone` never gets here: its last answer does not keep alive, and closed above.
        case .readingHead, .readingDone, .streaming, .closed: break
        }
        return actions
    }
}
