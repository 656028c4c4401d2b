import ReshapeRules

/// One client connection's protocol state: events from the parser and the socket go in,
/// actions for the server to execute come out. No I/O here, so every rule (ordering,
/// keep-alive, limits, timeouts) is tested without sockets.
public struct HTTPConnection: Sendable {
    public enum Event: Sendable {
        case messageBegan
        case urlBytes(Int)
        case headerField(bytes: Int)
        case headerValue(bytes: Int)
        /// The head is complete; `head` is what it says about the body to come.
        case headersComplete(RequestHead)
        case bodyBytes(Int)
        case messageComplete(HTTPRequest)
        /// The parser refused the bytes; `reason` is its error name (e.g. `HPE_INVALID_CHUNK_SIZE`).
        case parseError(reason: String)
        case peerClosed
        case responseReady(id: Int, HTTPResponse)
        case headerTimeout
        /// The body timer ran out (`startBodyTimer`).
        case bodyTimeout
        case idleTimeout
        case drain
    }

    public enum Action: Sendable, Equatable {
        case dispatch(id: Int, HTTPRequest)
        /// A response's head and body, kept apart so a large body is written from where it was
        /// rendered (one `writev`) instead of being copied behind its head.
        case write(head: [UInt8], body: [UInt8])
        /// Close once queued writes are done.
        case close
        /// The client is gone: stop the upstream work for this request.
        case cancel(id: Int)
        case stopReading
        case pauseReading
        case resumeReading
        case startHeaderTimer
        case stopHeaderTimer
        /// From a complete head to the end of its body (`bodyTimeoutMilliseconds`). Never runs
        /// with the header timer, so both may share one timer.
        case startBodyTimer
        case stopBodyTimer
        case startIdleTimer
        case stopIdleTimer
    }

    private struct Slot {
        let id: Int
        let headOnly: Bool
        let keepAlive: Bool
        var response: HTTPResponse?
    }

    public let limits: ServerLimits
    private var slots: [Slot] = []
    private var nextID = 0
    private var inHead = false
    /// Between the first byte of a request and its end (head or body still arriving).
    private var inMessage = false
    private var urlBytes = 0
    private var headerBytes = 0
    private var headerCount = 0
    private var bodyBytes = 0
    /// The body timer runs (a head promised a body that has not all arrived).
    private var awaitingBody = false
    /// `100 Continue` is owed to the request being read, once earlier responses are written
    /// (an interim answer sent before them would be read as theirs).
    private var continueOwed = false
    /// No more requests are read: the last one asked to close, or an error ended the stream.
    private var readingDone = false
    private var closed = false
    private var paused = false
    private var draining = false

    public init(limits: ServerLimits) {
        self.limits = limits
    }

    public var isClosed: Bool { closed }

    /// Actions for a freshly accepted connection: the header timer runs from the start, so a
    /// client that connects and never finishes a request head is cut off like a slow one.
    public mutating func opened() -> [Action] {
        closed ? [] : [.startHeaderTimer]
    }


    public mutating func handle(_ event: Event) -> [Action] {
        guard !closed else { return [] }
        switch event {
        case .messageBegan:
            inHead = true
            inMessage = true
            urlBytes = 0
            headerBytes = 0
            headerCount = 0
            bodyBytes = 0
            return [.stopIdleTimer, .startHeaderTimer]
        case .urlBytes(let count):
            urlBytes += count
            headerBytes += count
            if urlBytes > limits.maxURLBytes { return fail(.uriTooLong(limit: limits.maxURLBytes)) }
            return checkHeaderBytes()
        case .headerField(let count):
            headerCount += 1
            headerBytes += count
            if headerCount > limits.maxHeaderCount {
                return fail(.headersTooLarge("more than \(limits.maxHeaderCount) header fields"))
            }
            return checkHeaderBytes()
        case .headerValue(let count):
            headerBytes += count
            return checkHeaderBytes()
        case .headersComplete(let head):
            inHead = false
            var actions: [Action] = [.stopHeaderTimer]
            // A declared length past the limit is refused now, before the client sends it
            // (or waits for a `100 Continue` that would only invite it).
            if let length = head.contentLength, length > limits.maxBodyBytes {
                return fail(.bodyTooLarge(limit: limits.maxBodyBytes))
            }
            guard head.bodyExpected else { return actions }
            awaitingBody = true
            actions.append(.startBodyTimer)
            if head.expectsContinue {
                continueOwed = true
                actions += writeContinueIfDue()
            }
            return actions
        case .bodyBytes(let count):
            bodyBytes += count
            if bodyBytes > limits.maxBodyBytes { return fail(.bodyTooLarge(limit: limits.maxBodyBytes)) }
            return []
        case .messageComplete(let request):
            guard !readingDone else { return [] }
            inMessage = false
            continueOwed = false
            var timer: [Action] = []
            if awaitingBody {
                awaitingBody = false
                timer = [.stopBodyTimer]
            }
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
            var actions: [Action] = timer + [.dispatch(id: id, request)]
            if !keepAlive {
                readingDone = true
                actions.append(.stopReading)
            } else if slots.count >= limits.maxPipelinedRequests && !paused {
                paused = true
                actions.append(.pauseReading)
            }
            return actions
        case .parseError(let reason):
            // http_parser's own head limit (80 KiB as Debian builds it) is still "too large",
            // whatever our configured limit; everything else it refuses is malformed.
            if reason == "HPE_HEADER_OVERFLOW" {
                return fail(.headersTooLarge("the request head is larger than the parser accepts"))
            }
            return fail(.badRequest("the request is not valid HTTP/1.1 (\(reason))"))
        case .peerClosed:
            closed = true
            return slots.filter { $0.response == nil }.map { .cancel(id: $0.id) } + [.close]
        case .responseReady(let id, let response):
            guard let index = slots.firstIndex(where: { $0.id == id }) else { return [] }
            slots[index].response = response
            return flush()
        case .headerTimeout:
            // In a head, or on a connection that has not sent a whole request yet.
            guard inHead || (nextID == 0 && !inMessage) else { return [] }
            return fail(.headerTimeout)
        case .bodyTimeout:
            guard awaitingBody, inMessage else { return [] }
            return fail(.bodyTimeout)
        case .idleTimeout:
            guard slots.isEmpty, !inMessage else { return [] }
            closed = true
            return [.close]
        case .drain:
            draining = true
            if slots.isEmpty && !inMessage {
                closed = true
                return [.close]
            }
            return []
        }
    }

    private mutating func checkHeaderBytes() -> [Action] {
        headerBytes > limits.maxHeaderBytes ? fail(.headersTooLarge("the request head exceeds \(limits.maxHeaderBytes) bytes")) : []
    }

    /// Answers the broken request in turn (after earlier pipelined ones) and ends the connection.
    private mutating func fail(_ problem: Problem) -> [Action] {
        guard !readingDone else { return [] }
        readingDone = true
        inHead = false
        inMessage = false
        continueOwed = false
        var timer: [Action] = []
        if awaitingBody {
            awaitingBody = false
            timer = [.stopBodyTimer]
        }
        let id = nextID
        nextID += 1
        slots.append(Slot(id: id, headOnly: false, keepAlive: false, response: problem.response))
        return [.stopReading, .stopHeaderTimer] + timer + flush()
    }

    /// `HTTP/1.1 100 Continue`, when owed and nothing is waiting to be written before it.
    private mutating func writeContinueIfDue() -> [Action] {
        guard continueOwed, slots.isEmpty, !closed else { return [] }
        continueOwed = false
        return [.write(head: HTTPConnection.continueHead, body: [])]
    }

    static let continueHead = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Writes every response that is next in order.
    private mutating func flush() -> [Action] {
        var actions: [Action] = []
        while let first = slots.first, let response = first.response {
            slots.removeFirst()
            let keepAlive = first.keepAlive && !draining
            actions.append(.write(head: response.head(bodyBytes: response.body.count, keepAlive: keepAlive),
                                  body: first.headOnly ? [] : response.body))
            if !keepAlive {
                closed = true
                actions += slots.filter { $0.response == nil }.map { .cancel(id: $0.id) }
                actions.append(.close)
                return actions
            }
        }
        if paused && slots.count < limits.maxPipelinedRequests {
            paused = false
            actions.append(.resumeReading)
        }
        if slots.isEmpty { actions += writeContinueIfDue() }
        if slots.isEmpty && !inMessage {
            if draining {
                closed = true
                actions.append(.close)
            } else {
                actions.append(.startIdleTimer)
            }
        }
        return actions
    }
}

/// What a complete request head says about its body, for `HTTPConnection`.
public struct RequestHead: Sendable, Equatable {
    /// The declared `Content-Length`, when there is exactly one valid one.
    public var contentLength: Int?
    public var chunked: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request (RFC 9110 §10.1.1: never to HTTP/1.0).
    public var expectsContinue: Bool

    public init(contentLength: Int? = nil, chunked: Bool = false, expectsContinue: Bool = false) {
        self.contentLength = contentLength
        self.chunked = chunked
        self.expectsContinue = expectsContinue
    }

    /// Read from the header fields as received. Ambiguous framing is refused later, at the
    /// message's end (`RequestFraming`); here an unclear length only means "no promise".
    public init(headers: [NameValue], versionMajor: Int, versionMinor: Int) {
        var lengths: [String] = []
        var chunked = false
        var expects = false
        for header in headers {
            if RequestFraming.equalsIgnoringCase(header.name, "content-length") {
                lengths.append(header.value)
            } else if RequestFraming.equalsIgnoringCase(header.name, "transfer-encoding") {
                chunked = true
            } else if RequestFraming.equalsIgnoringCase(header.name, "expect") {
                let value = header.value.filter { $0 != " " && $0 != "\t" }
                expects = expects || RequestFraming.equalsIgnoringCase(value, "100-continue")
            }
        }
        let length = lengths.count == 1 ? Int(lengths[0].filter { $0 != " " && $0 != "\t" }) : nil
        self.init(contentLength: length.flatMap { $0 >= 0 ? $0 : nil }, chunked: chunked,
                  expectsContinue: expects && versionMajor == 1 && versionMinor >= 1)
    }

    /// Whether a body follows the head.
    public var bodyExpected: Bool { chunked || (contentLength ?? 0) > 0 }
}

extension Problem {
    /// A body promised by its head that did not all arrive within `bodyTimeoutMilliseconds`.
    public static let bodyTimeout = Problem(status: 408, code: "request-timeout", title: "Request timeout",
                                            detail: "the request body did not arrive in time")
}

extension HTTPRequest: Equatable {
    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.keepAlive == rhs.keepAlive
    }
}
