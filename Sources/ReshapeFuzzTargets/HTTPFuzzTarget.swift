import ReshapeProxy
import ReshapeRules
import ReshapeServer

// Bytes from a client go through the http_parser adapter into `HTTPConnectionStateMachine`,
// and this target executes the actions the way `ClientConnection` does, without sockets:
// requests are decided by a small rule set, errors answered at once, fetches later.
//
// Input: byte 0 holds flags (bit 0: small limits, so they are reached by short inputs; bits
// 1-3: n); the next n bytes are a schedule, used in a cycle; the rest is what the client sends.
// A schedule byte below 0xF0 reads that many bytes plus one from the socket; 0xF0 answers the
// oldest fetch in flight, 0xF1 the newest; 0xF2 fires the header timer and 0xF3 the idle timer
// (when running); 0xF4 drains (SIGTERM); 0xF5 closes the client's side; above, everything left
// is read at once. With n = 0 the whole input is one read; a schedule that never reads
// gets a final "read the rest".
//
// Properties: no crash; responses are written in request order, each once, with a
// Content-Length that matches its body; a response says `Connection: close` exactly when the
// connection is then closed; an error ends the connection after the responses before it;
// nothing is dispatched after reading stopped and nothing at all happens after close; pause
// and resume alternate, and reading is never left paused with nothing in flight to resume it.

private let rules: ServingRules = {
    let text = """
        upstreams:
          api: { url: "http://127.0.0.1:9/v1" }
        routes:
          - { name: user, request: "GET /users/{id}", upstream: api, path: "/users/{id}.json", transform: [] }
          - { name: users, request: "GET /users", upstream: api, path: /users.json, forward-query: [limit], transform: [] }
        """
    switch RuleLoader.load(files: [("rules.yaml", text)], environment: [:]) {
    case .success(let ruleSet): return ServingRules(ruleSet)
    case .failure(let diagnostics): fatalError("the fuzz target's own rules do not load: \(diagnostics)")
    }
}()

private let smallLimits: ServerLimits = {
    var limits = ServerLimits()
    limits.maxURLBytes = 64
    limits.maxHeaderBytes = 512
    limits.maxHeaderCount = 8
    limits.maxBodyBytes = 64
    limits.maxPipelinedRequests = 2
    return limits
}()

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let flags = input.first else { return 0 }
    let scheduleCount = Int(flags >> 1) & 7
    var schedule = Array(input.dropFirst().prefix(scheduleCount))
    // A schedule that never reads would loop forever: end it with "read the rest".
    if !schedule.contains(where: { $0 < 0xF0 || $0 > 0xF5 }) { schedule.append(0xFF) }
    let simulation = ConnectionSimulation(limits: flags & 1 == 1 ? smallLimits : ServerLimits())
    simulation.run(Array(input.dropFirst(1 + scheduleCount)), schedule: schedule)
    return 0
}

/// One client connection and what the server does with its actions.
private final class ConnectionSimulation {
    private var state: HTTPConnectionStateMachine
    private var parser: HTTPParserAdapter!
    private var pendingEvents: [HTTPConnectionStateMachine.Event] = []
    private var processing = false

    private var readingStopped = false
    private var paused = false
    private var closed = false
    private var headerTimerRunning = false
    private var idleTimerRunning = false
    /// Dispatched and not yet written (nor cancelled), in request order.
    private var unwritten: [Int] = []
    /// Fetches in flight: dispatched, not yet answered.
    private var inFlight: [Int] = []
    private var lastDispatched = -1
    /// The body each dispatched request is answered with (Content-Length is checked against it).
    private var answers: [Int: HTTPResponse] = [:]
    private var headOnly: Set<Int> = []

    init(limits: ServerLimits) {
        state = HTTPConnectionStateMachine(limits: limits)
        parser = HTTPParserAdapter(limits: limits) { [unowned self] event in
            self.send(event)
            // What `ClientConnection` asks, which must agree with the actions seen so far.
            require(
                self.state.readsRequests == !(self.closed || self.readingStopped),
                "readsRequests is \(self.state.readsRequests) in state \(self.state.stateName)")
            return self.state.readsRequests
        }
    }

    func run(_ bytes: [UInt8], schedule: [UInt8]) {
        execute(state.opened())
        var offset = 0
        var step = 0
        while !closed {
            require(!paused || !inFlight.isEmpty, "reading is paused with nothing in flight to resume it")
            if offset == bytes.count || readingStopped { break }
            let command = schedule[step % schedule.count]
            step += 1
            if paused {
                answer(inFlight[0])  // the server reads nothing until a response is written
                continue
            }
            switch command {
            case 0..<0xF0:
                let end = min(bytes.count, offset + Int(command) + 1)
                feed(bytes[offset..<end])
                offset = end
            case 0xF0: if let id = inFlight.first { answer(id) }
            case 0xF1: if let id = inFlight.last { answer(id) }
            case 0xF2: if headerTimerRunning { send(.headerTimeout) }
            case 0xF3: if idleTimerRunning { send(.idleTimeout) }
            case 0xF4: send(.drain)
            case 0xF5: send(.peerClosed)
            default:
                feed(bytes[offset...])
                offset = bytes.count
            }
        }
        // The client sent everything: the upstream answers whatever is in flight.
        while !closed, let id = inFlight.first { answer(id) }
        if !closed {
            require(unwritten.isEmpty, "requests \(unwritten) were never answered")
            require(!paused, "reading is still paused with nothing in flight")
            send(.peerClosed)
            require(closed, "the connection stays open after the client went away")
        }
        require(state.handle(.peerClosed).isEmpty && state.handle(.drain).isEmpty, "events after close produce actions")
    }

    private func feed(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { parser.feed($0) }
    }

    private func answer(_ id: Int) {
        inFlight.removeAll { $0 == id }
        send(.responseReady(id: id, answers[id]!))
    }

    /// Like `ClientConnection.send`: an event raised while another is handled waits its turn.
    private func send(_ event: HTTPConnectionStateMachine.Event) {
        guard !processing else {
            pendingEvents.append(event)
            return
        }
        processing = true
        execute(state.handle(event))
        while !pendingEvents.isEmpty {
            execute(state.handle(pendingEvents.removeFirst()))
        }
        processing = false
    }

    private func execute(_ actions: [HTTPConnectionStateMachine.Action]) {
        require(!closed || actions.isEmpty, "actions after close: \(actions)")
        for (index, action) in actions.enumerated() {
            require(!closed, "an action after close: \(action)")
            switch action {
            case .dispatch(let id, let request): dispatch(id, request)
            case .write(let head, let body, _):
                // The last write before a close must say so; earlier ones in the same batch not.
                let next = actions[(index + 1)...].first {
                    if case .write = $0 { true } else { $0 == .close || $0 == .lingeringClose }
                }
                written(head, body, closing: next == .close || next == .lingeringClose)
            case .close, .lingeringClose: closed = true
            // This harness never reports a send timeout.
            case .abort: require(false, "an abort though no send timed out")
            case .cancel(let id):
                require(unwritten.contains(id), "cancel of \(id), which is not waiting for a response")
                unwritten.removeAll { $0 == id }
                inFlight.removeAll { $0 == id }
            case .stopReading: readingStopped = true
            case .pauseReading:
                require(!paused, "pause while paused")
                paused = true
            case .resumeReading:
                require(paused, "resume while not paused")
                paused = false
            case .startHeaderTimer: headerTimerRunning = true
            case .stopHeaderTimer: headerTimerRunning = false
            // The head's timer, then its body's: they share the connection's one timer.
            case .startBodyTimer: headerTimerRunning = true
            case .stopBodyTimer: headerTimerRunning = false
            // This harness's loop never runs late.
            case .shedAtHead: require(false, "a request shed though the loop never ran late")
            case .startIdleTimer: idleTimerRunning = true
            case .stopIdleTimer: idleTimerRunning = false
            // This harness answers every request with a response, never with a stream.
            case .streamOpened(let id): require(false, "stream \(id) opened, though none was answered with one")
            }
        }
    }

    private func dispatch(_ id: Int, _ request: HTTPRequest) {
        require(!readingStopped, "request \(id) dispatched after reading stopped")
        require(id > lastDispatched, "request \(id) dispatched after \(lastDispatched)")
        checkLimitsAndFraming(request)
        lastDispatched = id
        unwritten.append(id)
        if request.method == "HEAD" { headOnly.insert(id) }
        let tag = NameValue(name: "X-Id", value: String(id))
        switch rules.decide(request) {
        case .respond(var response, _, _):
            response.headers.append(tag)
            answers[id] = response
            send(.responseReady(id: id, response))
        case .preflight(let preflight):
            var response = preflight.response
            response.headers.append(tag)
            answers[id] = response
            send(.responseReady(id: id, response))
        case .admin:
            answers[id] = HTTPResponse(status: 200, headers: [tag], body: Array("ok".utf8))
            send(.responseReady(id: id, answers[id]!))
        case .route:
            answers[id] = HTTPResponse.json(200, Array("{\"id\":\(id)}".utf8), extraHeaders: [tag])
            inFlight.append(id)
        }
    }

    /// A request that reaches dispatch is within the limits and framed one way only
    /// (docs/http.md). The adapter decodes bytes as UTF-8 with replacement, so sizes are
    /// counted in Unicode scalars, never more than the bytes that arrived.
    private func checkLimitsAndFraming(_ request: HTTPRequest) {
        let limits = state.limits
        let targetSize = request.target.unicodeScalars.count
        require(
            targetSize <= limits.maxURLBytes, "a \(targetSize)-byte target passed the \(limits.maxURLBytes)-byte limit")
        require(request.headers.count <= limits.maxHeaderCount, "\(request.headers.count) headers passed the limit")
        let headSize =
            targetSize + request.headers.reduce(0) { $0 + $1.name.unicodeScalars.count + $1.value.unicodeScalars.count }
        require(
            headSize <= limits.maxHeaderBytes, "a \(headSize)-byte head passed the \(limits.maxHeaderBytes)-byte limit")
        require(request.body.count <= limits.maxBodyBytes, "a \(request.body.count)-byte body passed the limit")
        let lengths = request.headers.filter { $0.name.lowercased() == "content-length" }
        let encodings = request.headers.filter { $0.name.lowercased() == "transfer-encoding" }
        require(lengths.count <= 1, "a request with \(lengths.count) Content-Length headers was dispatched")
        require(
            lengths.isEmpty || encodings.isEmpty, "a request with Content-Length and Transfer-Encoding was dispatched")
        if let length = lengths.first {
            let value = length.value.filter { $0 != " " && $0 != "\t" }
            require(
                Int(value) == request.body.count, "Content-Length \(length.value) but a \(request.body.count)-byte body"
            )
        }
    }

    private func written(_ head: [UInt8], _ body: [UInt8], closing: Bool) {
        let text = String(decoding: head, as: UTF8.self)
        require(
            text.hasPrefix("HTTP/1.1 ") && text.hasSuffix("\r\n\r\n"), "a malformed response head: \(describe(head))")
        // `Expect: 100-continue` is answered with an interim response: no body, nothing closes.
        if text.hasPrefix("HTTP/1.1 100 ") {
            require(
                text == "HTTP/1.1 100 Continue\r\n\r\n" && body.isEmpty && !closing,
                "a malformed 100 Continue: \(describe(head))")
            return
        }
        let lines = text.split(separator: "\r\n")
        let length = lines.first { $0.hasPrefix("Content-Length: ") }.flatMap { Int($0.dropFirst(16)) }
        require(
            text.contains("\r\nConnection: close\r\n") == closing,
            "Connection: close \(closing ? "missing before" : "without") a close: \(describe(head))")
        guard let idLine = lines.first(where: { $0.hasPrefix("X-Id: ") }), let id = Int(idLine.dropFirst(6)) else {
            // The state machine's own error response: answered in turn, and the last one.
            require(unwritten.isEmpty, "an error response written before requests \(unwritten)")
            require(closing, "an error response on a connection that stays open")
            require(
                length == body.count, "Content-Length \(length.map(String.init) ?? "missing") for \(body.count) bytes")
            return
        }
        require(unwritten.first == id, "response \(id) written while \(unwritten) wait, in this order")
        unwritten.removeFirst()
        let expected = answers[id]!.body
        require(
            length == expected.count,
            "Content-Length \(length.map(String.init) ?? "missing") for \(expected.count) bytes")
        require(body == (headOnly.contains(id) ? [] : expected), "response \(id) has another body")
    }
}
