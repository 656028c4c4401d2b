import CLibUV
import Glibc
import ReshapeJSON
import ReshapeProblem
import ReshapeProxy
import ReshapeRules

/// What a connection needs from the loop it lives on: a `Worker`, or the `AdminListener` on the
/// main thread's loop.
protocol ConnectionOwner: AnyObject {
    var loop: UnsafeMutablePointer<uv_loop_t> { get }
    var shared: SharedState { get }
    var metrics: Metrics { get }
    /// The `Date` of the answers written on this loop.
    var answerDate: AnswerDate { get }
    /// What the requests of the connections accepted here share (endpoints, metrics, logging).
    var lifecycleSettings: LifecycleSettings { get }
    /// Fetches for rule routes; nil where none are served.
    var upstream: UpstreamClient? { get }
    /// The live routes' shared upstream streams; nil where none are served.
    var liveHub: LiveHub? { get }
    /// Where this loop's connections keep their uv handles.
    var handleSlab: BlockSlab { get }
    /// The `auth` verifiers' key sets; nil where no route is served.
    var keyStore: KeyStore? { get }
    /// The loop runs later than `--max-loop-lag`: new route requests are shed.
    var shedding: Bool { get }
    func fillReadBuffer(_ buffer: UnsafeMutablePointer<uv_buf_t>?)
    /// Called by a connection as it closes; true the first time.
    func forget(_ connection: ClientConnection) -> Bool
    /// Hands work to this loop's thread from any thread; nil where nothing is ever handed over.
    var mailbox: LoopMailbox? { get }
    /// This loop's connection to the cache replicas share; nil without `--cache-redis`.
    var sharedCache: RedisClient? { get }
    /// The replicas' shared rate limits (`--limits-redis`); nil: each process limits alone.
    var sharedLimits: RedisClient? { get }
    /// Runs a cache refresh a stale answer asked for (`RequestLifecycle.Action.respondAndRefresh`),
    /// a request nobody waits for, until it is answered.
    func runInBackground(_ refresh: RequestLifecycle)
}

/// A loop-confined object handed across threads inside a `@Sendable` closure: the closure only
/// reads `value` once it runs on the object's own loop (posted there through its `LoopMailbox`).
final class LoopBound<Value: AnyObject>: @unchecked Sendable {
    weak var value: Value?
    init(_ value: Value?) { self.value = value }
}

/// As `LoopBound`, but holding the object: for an object that lives as long as its loop (a
/// worker's upstream client), which a weak reference would only give a side table that
/// LeakSanitizer cannot see the owner of.
final class LoopOwned<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// One client socket: the I/O driver of an `HTTPConnectionStateMachine`. Bytes go to the
/// parser adapter, its events to the state machine, and this class executes the actions that
/// come back. Each of its three uv handles (socket, header-then-body timer, idle timer) holds a
/// retain, released in its close callback.
final class ClientConnection {
    /// Where the socket's handles are in their life. Closing waits for the writes in flight,
    /// which `uv_close` would cancel; the send timer bounds how long (`SendWatch`).
    private enum Handles {
        /// Open: reads, writes and timers may start.
        case open
        /// Closing once `pendingWrites` reaches zero; the answers queued are still written.
        case closingAfterWrites
        /// A lingering close: once the answers queued are written, the sending side is shut
        /// down (`uv_shutdown`); meanwhile and after, what the client sends is read and
        /// discarded, until it closes its side, `lingerBytes` came, or the linger's time
        /// (`lingerMilliseconds`, a refusal's shorter) passed since the shutdown. Then the
        /// handles close, with nothing unread.
        case lingering(Lingering)
        /// `uv_close` called on every handle: nothing may touch them again.
        case closed

        var isOpen: Bool { if case .open = self { true } else { false } }

        var isClosed: Bool { if case .closed = self { true } else { false } }
    }

    /// What a lingering close counts: the bytes discarded, how long it reads on once shut
    /// down, and the timer that ends it.
    private final class Lingering {
        let milliseconds: Int
        var discarded = 0
        var timer: RouteTimer?

        init(milliseconds: Int) { self.milliseconds = milliseconds }
    }

    /// How long a lingering close reads on once its answer is out, and how much it reads at
    /// most: a client that sent its body without waiting has read its answer by then.
    static let lingerMilliseconds = 2000
    /// The connection cap's refusal lingers briefly: a flood of clients that never close must
    /// not hold sockets long (a request sent at once on loopback or a LAN has come by then).
    static let refusalLingerMilliseconds = 250
    static let lingerBytes = 16 << 20

    /// Written bytes that wait for the socket (the client reads slowly, or not at all), and
    /// the timer that bounds how long they may wait with none going out: the idle timeout,
    /// counted again whenever some went out. Made only when a write leaves bytes waiting.
    private final class SendWatch {
        var timer: RouteTimer?
        /// The bytes waiting when the timer was armed, and those written since.
        var unsent = 0
    }

    private let uvHandles: ConnectionHandles
    private var tcp: UnsafeMutablePointer<uv_tcp_t> { uvHandles.tcp }
    private var headerTimer: UnsafeMutablePointer<uv_timer_t> { uvHandles.headerTimer }
    private var idleTimer: UnsafeMutablePointer<uv_timer_t> { uvHandles.idleTimer }
    /// Handles not closed yet: their block is freed when the last close callback has run.
    private var handlesOpen = 3
    fileprivate unowned let owner: any ConnectionOwner
    private var state: HTTPConnectionStateMachine
    /// Parses the requests; made when bytes come, let go once the connection has idled a while.
    private var parser: HTTPParserAdapter?
    private var handles = Handles.open
    /// Events raised while another is being handled, in order.
    private var pendingEvents: [HTTPConnectionStateMachine.Event] = []
    /// An event is being handled. A flag of this driver's call stack, not a phase: in any
    /// state, executing an action can raise another event (an answer ready during dispatch).
    private var processing = false
    /// `uv_write`s in flight. A count beside `handles`: writes are in flight while open too,
    /// and only the last one to finish lets a closing connection close.
    private var pendingWrites = 0
    /// The lifecycles of this connection's requests and their fetches; made for a request,
    /// let go with the parser.
    private var driver: RequestDriver?
    /// The peer is on a loopback address (admin endpoints without their own port answer only it).
    private var peerIsLoopback = false
    /// The peer's address as text, for `client-address` rate limits.
    private var peerAddress = ""
    /// The live streams requests subscribed to, by request id; the first one written is the
    /// connection's answer, and the later ones are cancelled then.
    private var streamOutputs: [Int: StreamOutput] = [:]
    /// The live stream's chunks: one write on its way, the rest waiting together.
    private var chunks = ChunkQueue()
    /// What answered requests hold of the memory budget, by request id, until their answer's
    /// write (which then holds it) is made.
    private var heldAnswers: [Int: HeldBytes] = [:]
    /// Set while written bytes wait for the socket.
    private var sendWatch: SendWatch?

    init(owner: any ConnectionOwner) {
        self.owner = owner
        uvHandles = ConnectionHandles(in: owner.handleSlab.allocate())
        state = HTTPConnectionStateMachine(limits: owner.shared.configuration.limits)
        uv_tcp_init(owner.loop, tcp)
        uv_timer_init(owner.loop, headerTimer)
        uv_timer_init(owner.loop, idleTimer)
        for handle in [reshape_tcp_handle(tcp), reshape_timer_handle(headerTimer), reshape_timer_handle(idleTimer)] {
            handle?.pointee.data = Unmanaged.passRetained(self).toOpaque()
        }
    }

    /// Accepts from the listener and starts reading; false when the accept failed.
    func accept(from server: UnsafeMutablePointer<uv_stream_t>) -> Bool {
        guard uv_accept(server, reshape_tcp_stream(tcp)) == 0 else {
            closeHandles()
            return false
        }
        uv_tcp_nodelay(tcp, 1)
        peerIsLoopback = PeerAddress.isLoopback(tcp)
        peerAddress = PeerAddress.text(tcp)
        owner.metrics.connectionOpened()
        for action in state.opened() { execute(action) }
        resumeReading()
        return true
    }

    /// Answers 503 and closes: the worker is at its connection limit. Nothing was read, and the
    /// client may have sent its request already: the close lingers, briefly, if `lingering`
    /// (the worker bounds how many refusals linger at once); else it closes once written.
    func refuseOverloaded(lingering: Bool) {
        for action in state.refused() { execute(action) }
        write(
            Problem.overloadedResponse.serialized(headOnly: false, keepAlive: false, date: owner.answerDate.current()),
            [])
        requestClose(lingering: lingering, for: Self.refusalLingerMilliseconds)
    }

    func drain() { send(.drain) }

    /// Closes at once, dropping what is not written: the send timer's end, or the process's.
    func closeNow() {
        driver?.cancelAll()
        closeHandles()
    }

    // MARK: - Events and actions

    private func send(_ event: HTTPConnectionStateMachine.Event) {
        // An event raised while another is being handled (a response ready during dispatch)
        // waits its turn, so the state machine never sees events out of order.
        guard !processing else {
            pendingEvents.append(event)
            return
        }
        processing = true
        state.date = owner.answerDate.current()
        state.shedding = owner.shedding
        for action in state.handle(event) { execute(action) }
        while !pendingEvents.isEmpty {
            let next = pendingEvents.removeFirst()
            for action in state.handle(next) { execute(action) }
        }
        processing = false
        // An answer not written now waits behind an earlier request's: the budget must know.
        for held in heldAnswers.values { held.waitsBehind(true) }
    }

    private func execute(_ action: HTTPConnectionStateMachine.Action) {
        switch action {
        case .dispatch(let id, let request): dispatch(id, request)
        case .write(let head, let body, let answer):
            let held = answer.flatMap { heldAnswers.removeValue(forKey: $0) }
            held?.waitsBehind(false)
            write(head, body, holding: held)
        // The machine writes nothing more: answers it dropped give their memory back now.
        case .close:
            dropHeldAnswers()
            requestClose()
        case .lingeringClose:
            dropHeldAnswers()
            requestClose(lingering: true)
        case .abort:
            // Answers already counted as sent are lost with it: say so.
            Log.event(
                "connection cut off: its answers made no progress for the idle timeout",
                ["unsent_bytes": .number(JSONNumber(Int(uv_stream_get_write_queue_size(reshape_tcp_stream(tcp)))))])
            closeNow()
        case .cancel(let id):
            driver?.cancel(id)
        case .streamOpened(let id):
            streamOutputs[id]?.opened()
            // Read on, only to notice the client leaving: the bytes are not parsed.
            if handles.isOpen { resumeReading() }
        case .stopReading, .pauseReading: if !handles.isClosed { uv_read_stop(reshape_tcp_stream(tcp)) }
        // Actions run once the event is handled: a machine that stopped reading meanwhile says so.
        case .resumeReading: if !handles.isClosed && state.readsRequests { resumeReading() }
        case .startHeaderTimer:
            startTimer(headerTimer, owner.shared.configuration.limits.headerTimeoutMilliseconds, .headerTimeout)
        case .stopHeaderTimer: if !handles.isClosed { uv_timer_stop(headerTimer) }
        // The head and then its body: the phases never overlap, so they share one timer.
        case .startBodyTimer:
            startTimer(headerTimer, owner.shared.configuration.limits.bodyTimeoutMilliseconds, .bodyTimeout)
        case .stopBodyTimer: if !handles.isClosed { uv_timer_stop(headerTimer) }
        case .shedAtHead: owner.metrics.recordShed(reason: "loop-lag")
        case .startIdleTimer:
            startTimer(idleTimer, owner.shared.configuration.limits.idleTimeoutMilliseconds, .idleTimeout)
            startReleaseTimer()
        case .stopIdleTimer: if !handles.isClosed { uv_timer_stop(idleTimer) }
        }
    }

    // MARK: - What a request needs

    private func requestParser() -> HTTPParserAdapter {
        if let parser { return parser }
        let made = HTTPParserAdapter(limits: owner.shared.configuration.limits) { [unowned self] event in
            self.send(event)
            return self.state.readsRequestsInPlace()
        }
        parser = made
        return made
    }

    private func requestDriver() -> RequestDriver {
        if let driver { return driver }
        let made = RequestDriver(owner: owner) { [unowned self] id, response, held in
            if let held, !self.handles.isClosed { self.heldAnswers[id] = held }
            self.send(.responseReady(id: id, response))
        }
        made.host = self
        driver = made
        return made
    }

    /// A connection idle this long lets go of its parser, its driver and what its requests left
    /// in storage: ten thousand idle keep-alive connections would otherwise each hold a
    /// request's worth of small blocks, allocated among that request's passing ones, which then
    /// keep the allocator from handing those pages back. Requests that follow each other closer
    /// than this reuse them.
    static let releaseAfterIdleMilliseconds = 1000

    /// Runs `releaseWhileIdle` once the connection has been idle for a while, on the header
    /// timer: it runs only while a request head arrives, and the next one restarts it.
    private func startReleaseTimer() {
        guard !handles.isClosed else { return }
        uv_timer_start(
            headerTimer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue().releaseWhileIdle()
            }, UInt64(Self.releaseAfterIdleMilliseconds), 0)
    }

    private func releaseWhileIdle() {
        guard !processing, state.holdsNoRequest, driver?.isIdle ?? true else { return }
        parser = nil
        driver = nil
        state.releaseStorage()
        pendingEvents = []
        streamOutputs = [:]
    }

    /// Runs a request's lifecycle: what to fetch and what to answer is `RequestLifecycle`'s to
    /// decide; the driver performs its actions and hands the answer back to be written. The
    /// request is in flight from here until the driver records it finished.
    private func dispatch(_ id: Int, _ request: HTTPRequest) {
        var request = request
        request.fromLoopback = peerIsLoopback
        request.peerAddress = peerAddress
        owner.metrics.requestStarted()
        let dispatched = RequestLifecycle.dispatch(
            request, rules: owner.shared.rules,
            draining: owner.shared.draining.load(ordering: .relaxed), shedding: owner.shedding,
            settings: owner.lifecycleSettings, now: Clock.monotonicSeconds(),
            wallClockMilliseconds: Clock.unixMilliseconds, cacheWaiter: requestDriver().cacheWaiter(for: id))
        switch dispatched {
        case .cached(let answer, let finished):
            // Recorded first, as the driver does: a client that reads the answer finds it counted.
            RequestDriver.record(finished, owner: owner)
            send(.renderedReady(id: id, answer))
        case .lifecycle(let lifecycle, let action):
            requestDriver().run(id, lifecycle, action)
        }
    }

    // MARK: - Socket

    /// One `uv_write` in flight. It holds the arrays it writes, so their storage stays put
    /// and unchanged until libuv is done with it: the bytes are written where they were
    /// rendered, not copied. A live stream's chunk has a third (its CRLF, after bytes shared
    /// with other subscribers); an answer has two.
    private final class WriteRequest {
        let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        let head: [UInt8]
        let body: [UInt8]
        let tail: [UInt8]
        let connection: ClientConnection
        /// Runs once the bytes are written (a live stream sends what waited meanwhile).
        let done: (() -> Void)?
        /// The answered request's memory, given back with this write's end.
        let held: HeldBytes?

        init(
            head: [UInt8], body: [UInt8], tail: [UInt8], connection: ClientConnection, held: HeldBytes?,
            done: (() -> Void)?
        ) {
            self.head = head
            self.body = body
            self.tail = tail
            self.connection = connection
            self.held = held
            self.done = done
        }

        deinit { request.deallocate() }
    }

    private func write(
        _ head: [UInt8], _ body: [UInt8], _ tail: [UInt8] = [], holding held: HeldBytes? = nil,
        then done: (() -> Void)? = nil
    ) {
        guard !handles.isClosed, !(head.isEmpty && body.isEmpty && tail.isEmpty) else { return }
        let pending = WriteRequest(head: head, body: body, tail: tail, connection: self, held: held, done: done)
        pending.request.pointee.data = Unmanaged.passRetained(pending).toOpaque()
        pendingWrites += 1
        let status = withBuffers(pending.head, pending.body, pending.tail) { buffers, count in
            uv_write(pending.request, reshape_tcp_stream(tcp), buffers, count) { request, _ in
                guard let request, let data = request.pointee.data else { return }
                let pending = Unmanaged<WriteRequest>.fromOpaque(data).takeRetainedValue()
                // What waited behind this write goes out before a closing connection may close.
                pending.done?()
                pending.connection.writeFinished()
            }
        }
        if status != 0 {
            Unmanaged.passUnretained(pending).release()
            pendingWrites -= 1
            requestClose()
        } else {
            watchSend(adding: head.count + body.count + tail.count)
        }
    }

    /// After a write of `bytes`: bytes waiting for the socket start the send timer, unless it runs.
    private func watchSend(adding bytes: Int) {
        if let sendWatch {
            sendWatch.unsent += bytes
            return
        }
        let waiting = Int(uv_stream_get_write_queue_size(reshape_tcp_stream(tcp)))
        guard waiting > 0 else { return }
        armSendTimer(unsent: waiting)
    }

    private func armSendTimer(unsent: Int) {
        let watch = sendWatch ?? SendWatch()
        watch.unsent = unsent
        // Stopped when the writes are done or the handles close: it never outlives the connection.
        let milliseconds = owner.shared.configuration.limits.idleTimeoutMilliseconds
        watch.timer = RouteTimer(loop: owner.loop, milliseconds: milliseconds) { [unowned self] in
            self.sendTimerFired()
        }
        sendWatch = watch
    }

    /// Bytes went out since the timer was armed: it counts again; none did: the client reads
    /// nothing, and the state machine ends the connection.
    private func sendTimerFired() {
        guard let watch = sendWatch, !handles.isClosed else { return }
        let waiting = Int(uv_stream_get_write_queue_size(reshape_tcp_stream(tcp)))
        if waiting == 0 {
            sendWatch = nil  // all went out: the writes' callbacks are on their way
        } else if waiting < watch.unsent {
            armSendTimer(unsent: waiting)
        } else {
            send(.sendTimeout)
        }
    }

    /// Calls `call` with uv buffers over the non-empty arrays, in order. libuv copies the
    /// `uv_buf_t`s themselves but not the bytes, which the `WriteRequest` keeps alive.
    private func withBuffers(
        _ head: [UInt8], _ body: [UInt8], _ tail: [UInt8],
        _ call: (UnsafePointer<uv_buf_t>, UInt32) -> Int32
    ) -> Int32 {
        head.withUnsafeBufferPointer { head in
            body.withUnsafeBufferPointer { body in
                tail.withUnsafeBufferPointer { tail in
                    withUnsafeTemporaryAllocation(of: uv_buf_t.self, capacity: 3) { buffers in
                        var count = 0
                        func add(_ part: UnsafeBufferPointer<UInt8>) {
                            guard let base = part.baseAddress, !part.isEmpty else { return }
                            buffers[count] = uv_buf_init(
                                UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self),
                                UInt32(part.count))
                            count += 1
                        }
                        add(head)
                        add(body)
                        add(tail)
                        return call(UnsafePointer(buffers.baseAddress!), UInt32(count))
                    }
                }
            }
        }
    }

    private func writeFinished() {
        pendingWrites -= 1
        guard pendingWrites == 0 else { return }
        stopSendTimer()
        switch handles {
        case .closingAfterWrites: closeHandles()
        // The shutdown queued behind the writes follows.
        case .open, .lingering, .closed: break
        }
    }

    private func stopSendTimer() {
        sendWatch?.timer?.stop()
        sendWatch = nil
    }

    /// Closes once queued writes are on the wire (uv_close would cancel them). A client that
    /// reads none of them (a slow consumer, or one that never reads) does not hold them, nor
    /// the socket, for ever: the send timer ends the connection (`sendTimeout`).
    /// `lingering`: the client may still be sending what was not read (`lingeringClose`), read
    /// on for `milliseconds` after the shutdown; without it, only where the client's end came
    /// or its socket failed.
    func requestClose(lingering: Bool = false, for milliseconds: Int = lingerMilliseconds) {
        if handles.isOpen { handles = lingering ? startLingering(milliseconds) : .closingAfterWrites }
        driver?.cancelAll()
        if pendingWrites == 0, case .closingAfterWrites = handles { closeHandles() }
    }

    /// Shuts the sending side down behind the queued writes and reads on, discarding; the
    /// handles close when that ends (`lingerRead`, `shutDown`). Without a shutdown, a plain close.
    private func startLingering(_ milliseconds: Int) -> Handles {
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        // Its callback runs once, also when the handles close first (`UV_ECANCELED`).
        let status = uv_shutdown(request, reshape_tcp_stream(tcp)) { request, status in
            guard let request, let data = request.pointee.data else { return }
            let connection = Unmanaged<ClientConnection>.fromOpaque(data).takeRetainedValue()
            request.deallocate()
            connection.shutDown(status)
        }
        guard status == 0 else {
            Unmanaged.passUnretained(self).release()
            request.deallocate()
            return .closingAfterWrites
        }
        // Reading stopped at the refusal; it starts again with a callback that only discards.
        uv_read_stop(reshape_tcp_stream(tcp))
        uv_read_start(
            reshape_tcp_stream(tcp),
            ClientConnection.readBuffer,
            { stream, count, _ in
                guard let stream, let data = stream.pointee.data else { return }
                Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue().lingerRead(count)
            })
        return .lingering(Lingering(milliseconds: milliseconds))
    }

    /// The writes are done and the sending side is shut down: the client has its answers and
    /// the end of them. What it still sends is read for the linger's `milliseconds` at most.
    private func shutDown(_ status: Int32) {
        guard case .lingering(let lingering) = handles else { return }
        guard status == 0 else { return closeHandles() }
        lingering.timer = RouteTimer(loop: owner.loop, milliseconds: lingering.milliseconds) { [unowned self] in
            self.closeHandles()
        }
    }

    /// Bytes read while lingering, discarded; the client's end (or a failed socket) leaves
    /// nothing unread: the handles close once the writes are done.
    private func lingerRead(_ count: Int) {
        guard case .lingering(let lingering) = handles else { return }
        if count >= 0 {
            lingering.discarded += count
            if lingering.discarded > Self.lingerBytes { closeHandles() }
        } else if count == Int(UV_EOF.rawValue), pendingWrites > 0 {
            uv_read_stop(reshape_tcp_stream(tcp))
            lingering.timer?.stop()
            handles = .closingAfterWrites
        } else {
            closeHandles()
        }
    }

    private func closeHandles() {
        stopSendTimer()
        if case .lingering(let lingering) = handles { lingering.timer?.stop() }
        guard !handles.isClosed else { return }
        handles = .closed
        // Answers never written give their memory back now.
        dropHeldAnswers()
        if owner.forget(self) { owner.metrics.connectionClosed() }
        let onClose: uv_close_cb = { handle in
            guard let handle, let data = handle.pointee.data else { return }
            let connection = Unmanaged<ClientConnection>.fromOpaque(data)
            connection.takeUnretainedValue().handleClosed()
            connection.release()
        }
        uv_close(reshape_tcp_handle(tcp), onClose)
        uv_close(reshape_timer_handle(headerTimer), onClose)
        uv_close(reshape_timer_handle(idleTimer), onClose)
    }

    /// Answers that will never be written give back what they hold (once nothing else does).
    private func dropHeldAnswers() {
        for held in heldAnswers.values { held.waitsBehind(false) }
        heldAnswers.removeAll()
    }

    private func handleClosed() {
        handlesOpen -= 1
        if handlesOpen == 0 { owner.handleSlab.deallocate(uvHandles.block) }
    }

    /// Where every read of a connection lands: its worker's shared read buffer (the request
    /// reads and a lingering close's discarding reads alike).
    private static let readBuffer: uv_alloc_cb = { handle, _, buffer in
        guard let handle, let data = handle.pointee.data else { return }
        Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue().owner.fillReadBuffer(buffer)
    }

    private func resumeReading() {
        uv_read_start(
            reshape_tcp_stream(tcp),
            ClientConnection.readBuffer,
            { stream, count, buffer in
                guard let stream, let data = stream.pointee.data else { return }
                let connection = Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue()
                if count > 0, let base = buffer?.pointee.base {
                    guard connection.state.readsRequests else { return }
                    connection.requestParser().feed(UnsafeRawBufferPointer(start: base, count: count))
                } else if count < 0 {
                    connection.send(.peerClosed)
                }
            })
    }

    private func startTimer(
        _ timer: UnsafeMutablePointer<uv_timer_t>, _ milliseconds: Int,
        _ event: HTTPConnectionStateMachine.Event
    ) {
        guard !handles.isClosed else { return }
        let callback: uv_timer_cb
        switch event {
        case .headerTimeout:
            callback = { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue().send(.headerTimeout)
            }
        case .bodyTimeout:
            callback = { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue().send(.bodyTimeout)
            }
        default:
            callback = { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ClientConnection>.fromOpaque(data).takeUnretainedValue().send(.idleTimeout)
            }
        }
        uv_timer_start(timer, callback, UInt64(milliseconds), 0)
    }
}

extension ClientConnection: StreamHost {
    func streamSink(for id: Int) -> any LiveSink {
        let output = StreamOutput(host: self)
        streamOutputs[id] = output
        return output
    }

    func dropStreamSink(for id: Int) { streamOutputs[id] = nil }

    func streamReady(_ id: Int, headers: [NameValue]) { send(.streamReady(id: id, headers: headers)) }

    /// One chunk: its size in hex, the bytes, CRLF, in one write of up to three buffers (the
    /// shared bytes where they are); behind a write still on its way, it waits with the others
    /// in `chunks` and goes out with them.
    func writeChunk(_ chunk: StreamChunk) {
        guard handles.isOpen, state.isStreaming, chunk.count > 0 else { return }
        if let write = chunks.add(chunk) {
            self.write(write.head, write.body, write.tail) { [unowned self] in self.chunkWritten() }
        }
    }

    private func chunkWritten() {
        if let waited = chunks.writeDone() { write([], waited) { [unowned self] in self.chunkWritten() } }
    }

    var unsentBytes: Int {
        handles.isClosed ? 0 : Int(uv_stream_get_write_queue_size(reshape_tcp_stream(tcp))) + chunks.waiting.count
    }

    /// Ends the stream's answer, after the chunks still waiting; the close that follows bounds
    /// how long its last writes wait (`requestClose`). The event may wait its turn behind the
    /// one being handled.
    func endStream() {
        if !handles.isClosed, let waited = chunks.takeAll() { write([], waited) }
        send(.streamEnded)
    }
}
