import CLibUV
import Glibc
import ReshapeJSON
import ReshapeProxy

/// One event loop on its own thread: a listening socket (SO_REUSEPORT), the client
/// connections it accepted, and one upstream client. Nothing here is touched from another
/// thread except `commands` and `mailbox`, async handles (uv_async_send is thread-safe).
final class Worker: ConnectionOwner {
    /// Where the worker is in its life.
    private enum Phase {
        /// Accepting connections and serving them.
        case serving
        /// Accepting no more (SIGTERM); the connections it has finish their requests.
        case draining
        /// Every connection is gone: the loop's last handles close and `run` returns.
        case stopped
    }

    let index: Int
    let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
    let shared: SharedState
    let metrics: Metrics
    let answerDate = AnswerDate()
    var lifecycleSettings: LifecycleSettings
    /// This loop's connection to the shared cache (`--cache-redis`).
    private(set) var sharedCache: RedisClient?
    private(set) var sharedLimits: RedisClient?
    let upstream: UpstreamClient?
    private(set) var liveHub: LiveHub?
    private(set) var keyStore: KeyStore?
    /// Measures how late the loop runs, with `--max-loop-lag`.
    private var lagWatch: LoopLagWatch?
    var shedding: Bool { lagWatch?.lag.shedding ?? false }
    /// Sends this loop's spans, with `--otlp-endpoint`.
    private var spanExporter: SpanExporter?
    private let listener = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    let commands = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    /// Connections refused past the cap, until they close: kept apart, so they do not keep the
    /// next client out, and bounded apart (`maxLingeringRefusals`).
    private var refused: [ObjectIdentifier: ClientConnection] = [:]
    let handleSlab = BlockSlab(byteCount: ConnectionHandles.byteCount)
    /// Work other threads hand this loop (cached answers another worker fetched).
    private(set) var mailbox: LoopMailbox?
    /// Cache refreshes: requests without a client.
    private var background: RequestDriver!
    private var nextBackgroundID = 0
    private let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var phase = Phase.serving
    /// Past serving: new connections are drained at once, refreshes no longer start.
    private var draining: Bool { phase != .serving }
    private var thread = pthread_t()
    private var owningThread = pthread_t()

    /// Prepares the loop and its handles on the calling thread; `start` runs it on a new one.
    init(index: Int, listeningSocket fd: Int32, shared: SharedState) {
        self.index = index
        self.shared = shared
        metrics = shared.metrics[index]
        // Everything on one port, unless the admin endpoints have their own (`AdminListener`).
        lifecycleSettings = LifecycleSettings(
            endpoints: shared.configuration.adminListen == nil ? .all : .routes, canFetch: true,
            accessLog: shared.configuration.accessLog, metrics: metrics,
            cache: shared.cache,
            // The loop's own compressor: it keeps state between answers and is not thread-safe.
            compression: AnswerCompression(minimumBytes: shared.configuration.compressMinBytes),
            admin: { [unowned shared] in shared.adminResponse($0) })
        lifecycleSettings.sharesCache = shared.configuration.redis != nil
        lifecycleSettings.limits = shared.limits
        lifecycleSettings.sharesLimits = shared.configuration.limitsRedis != nil
        uv_loop_init(loop)
        let mailbox = LoopMailbox(loop: loop)
        self.mailbox = mailbox
        let upstream = UpstreamClient(
            loop: loop, metrics: metrics, admissions: shared.admissions, inflight: shared.inflight, mailbox: mailbox)
        self.upstream = upstream
        let hub = LiveHub(
            loop: loop, upstream: upstream, metrics: metrics,
            stallSeconds: shared.configuration.liveStallSeconds)
        liveHub = hub
        keyStore = KeyStore(upstream: upstream)
        // At start, as the loop begins to run; verifiers a reload adds are fetched at first use.
        keyStore?.prefetch(shared.rules.ruleSet.verifiers.values)
        if let milliseconds = shared.configuration.maxLoopLagMilliseconds {
            lagWatch = LoopLagWatch(loop: loop, lag: LoopLag(maxLagSeconds: Double(milliseconds) / 1000))
        }
        lifecycleSettings.servesLive = true
        lifecycleSettings.tracer = Worker.tracer(
            loop: loop, upstream: upstream, configuration: shared.configuration, metrics: metrics,
            exporter: &spanExporter)
        if let address = shared.configuration.redis {
            sharedCache = RedisClient(
                loop: loop, address: address,
                commandTimeoutMilliseconds: shared.configuration.redisTimeoutMilliseconds, metrics: metrics)
        }
        if let address = shared.configuration.limitsRedis {
            sharedLimits = RedisClient(
                loop: loop, address: address,
                commandTimeoutMilliseconds: shared.configuration.limitsRedisTimeoutMilliseconds, metrics: metrics,
                role: .limits)
        }
        background = RequestDriver(owner: self) { _, _, _ in }
        uv_tcp_init(loop, listener)
        uv_tcp_open(listener, fd)
        listener.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_async_init(loop, commands) { async in
            guard let async, let data = async.pointee.data else { return }
            Unmanaged<Worker>.fromOpaque(data).takeUnretainedValue().beginDrain()
        }
        commands.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        // Listening here, before `start`, rather than on the loop's thread: the server says
        // "listening" once every worker is built, and a client that connects at once must not
        // be refused because a worker thread has not been scheduled yet.
        let status = uv_listen(reshape_tcp_stream(listener), 1024) { server, status in
            guard status == 0, let server, let data = server.pointee.data else { return }
            Unmanaged<Worker>.fromOpaque(data).takeUnretainedValue().acceptConnection(server)
        }
        if status != 0 {
            Log.event(
                "cannot listen",
                ["worker": .number(JSONNumber(index)), "error": .string(String(cString: uv_strerror(status)))])
        }
    }

    /// Runs the loop on a new thread until the worker has drained.
    func start(onExit: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ThreadBox(worker: self, onExit: onExit)).toOpaque()
        pthread_create(
            &thread, nil,
            { argument in
                let box = Unmanaged<ThreadBox>.fromOpaque(argument!).takeRetainedValue()
                box.worker.run()
                box.onExit()
                return nil
            }, box)
    }

    /// Asks the worker, from any thread, to stop accepting and finish what it has.
    func requestDrain() { uv_async_send(commands) }

    func join() { pthread_join(thread, nil) }

    private func run() {
        owningThread = pthread_self()
        uv_run(loop, UV_RUN_DEFAULT)
        uv_loop_close(loop)
    }

    private func acceptConnection(_ server: UnsafeMutablePointer<uv_stream_t>) {
        assertOnLoopThread()
        let connection = ClientConnection(owner: self)
        guard connection.accept(from: server) else { return }
        guard connections.count < shared.configuration.limits.maxConnections else {
            refused[ObjectIdentifier(connection)] = connection
            connection.refuseOverloaded(lingering: refused.count <= Self.maxLingeringRefusals)
            return
        }
        connections[ObjectIdentifier(connection)] = connection
        if draining { connection.drain() }
    }

    /// Refusals that may linger at once; past them a refusal closes once its answer is
    /// written, so a flood of clients that never close holds no more sockets than this.
    static let maxLingeringRefusals = 64

    /// Called by a connection as it closes; true the first time.
    func forget(_ connection: ClientConnection) -> Bool {
        let key = ObjectIdentifier(connection)
        let known = connections.removeValue(forKey: key) != nil || refused.removeValue(forKey: key) != nil
        if draining { finishDrainIfIdle() }
        return known
    }

    /// A draining worker starts no refresh: cancelled, it hands the key's fetch back.
    func runInBackground(_ refresh: RequestLifecycle) {
        guard !draining else { return RequestDriver.drop(refresh) }
        nextBackgroundID += 1
        background.run(nextBackgroundID, refresh, refresh.startRefresh())
    }

    /// A load has ended: the easy handles kept for it go, but a few, and the allocator hands
    /// the free memory of every arena back to the system (`MemoryTrim` decides when).
    func releaseSpareMemory() {
        assertOnLoopThread()
        upstream?.releaseIdleHandles(keeping: UpstreamClient.idleHandlesAfterLoad)
        _ = reshape_malloc_trim()
    }

    /// libuv asks for a buffer before each read; the bytes are parsed before the next read,
    /// so one buffer per loop serves every connection.
    func fillReadBuffer(_ buffer: UnsafeMutablePointer<uv_buf_t>?) {
        buffer?.pointee = uv_buf_init(readBuffer.assumingMemoryBound(to: CChar.self), 64 * 1024)
    }

    // MARK: - Shutdown

    private func beginDrain() {
        guard phase == .serving else { return }
        phase = .draining
        uv_close(UnsafeMutableRawPointer(listener).assumingMemoryBound(to: uv_handle_t.self), nil)
        for connection in Array(connections.values) { connection.drain() }
        // Streams do not hold up the drain: each subscriber gets its last event and closes.
        liveHub?.drain()
        finishDrainIfIdle()
    }

    private func finishDrainIfIdle() {
        guard connections.isEmpty, phase == .draining else { return }
        phase = .stopped
        // Refreshes are nobody's request: they do not hold up the drain.
        background.cancelAll()
        liveHub?.close()
        keyStore?.close()
        lagWatch?.close()
        mailbox?.close()
        sharedCache?.close()
        sharedLimits?.close()
        spanExporter?.close()
        upstream?.close()
        uv_close(reshape_async_handle(commands), nil)
    }

    /// This loop's tracer: ids from a generator seeded once from the system, and, with an
    /// OTLP endpoint, an exporter on this loop's own curl multi.
    private static func tracer(
        loop: UnsafeMutablePointer<uv_loop_t>, upstream: UpstreamClient?, configuration: ServerConfiguration,
        metrics: Metrics, exporter: inout SpanExporter?
    ) -> Tracer {
        let offset = Double(Clock.unixMilliseconds()) / 1000 - Clock.monotonicSeconds()
        guard let endpoint = configuration.otlpEndpoint, let upstream else {
            return Tracer(sampleRatio: configuration.traceSampleRatio, unixOffsetSeconds: offset)
        }
        let made = SpanExporter(
            loop: loop, upstream: upstream, endpoint: endpoint, serviceName: configuration.serviceName,
            metrics: metrics)
        exporter = made
        return Tracer(
            sampleRatio: configuration.traceSampleRatio, unixOffsetSeconds: offset,
            export: { [unowned made] span in made.enqueue(span) })
    }

    private func assertOnLoopThread() {
        assert(pthread_equal(owningThread, pthread_self()) != 0, "loop state touched off its loop thread")
    }
}

private final class ThreadBox {
    let worker: Worker
    let onExit: () -> Void
    init(worker: Worker, onExit: @escaping () -> Void) {
        self.worker = worker
        self.onExit = onExit
    }
}
