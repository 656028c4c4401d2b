import CLibUV
import ReshapeProxy

/// The admin endpoints on a port of their own (`--admin-listen`), served from the main thread's
/// loop. That loop otherwise only waits for signals, so probes and scrapes are answered however
/// busy the workers are; and it runs until the process exits, so `/_reshape/ready` keeps
/// answering (503) while the workers drain. Its connections are ordinary `ClientConnection`s
/// that answer the admin endpoints only, so they never fetch upstream.
final class AdminListener: ConnectionOwner {
    let loop: UnsafeMutablePointer<uv_loop_t>
    let shared: SharedState
    let metrics: Metrics
    let answerDate = AnswerDate()
    let lifecycleSettings: LifecycleSettings
    let upstream: UpstreamClient? = nil
    let liveHub: LiveHub? = nil
    let keyStore: KeyStore? = nil
    /// Health and metrics are never shed.
    let shedding = false
    private let listener = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    let handleSlab = BlockSlab(byteCount: ConnectionHandles.byteCount)
    private let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(loop: UnsafeMutablePointer<uv_loop_t>, listeningSocket fd: Int32, shared: SharedState) {
        self.loop = loop
        self.shared = shared
        metrics = shared.metrics[shared.configuration.workers]
        lifecycleSettings = LifecycleSettings(
            endpoints: .admin, canFetch: false, accessLog: shared.configuration.accessLog,
            metrics: metrics, cache: shared.cache,
            compression: AnswerCompression(minimumBytes: shared.configuration.compressMinBytes),
            admin: { [unowned shared] in shared.adminResponse($0) })
        uv_tcp_init(loop, listener)
        uv_tcp_open(listener, fd)
        listener.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Starts accepting; libuv's error message when it cannot.
    func listen() -> String? {
        let status = uv_listen(reshape_tcp_stream(listener), 128) { server, status in
            guard status == 0, let server, let data = server.pointee.data else { return }
            Unmanaged<AdminListener>.fromOpaque(data).takeUnretainedValue().acceptConnection(server)
        }
        return status == 0 ? nil : String(cString: uv_strerror(status))
    }

    deinit { readBuffer.deallocate() }

    /// Stops accepting and closes every connection: the workers are gone, the process is exiting.
    /// The listening handle is freed by its close callback, once libuv is done with it.
    func close() {
        uv_close(reshape_tcp_handle(listener)) { handle in handle?.deallocate() }
        for connection in Array(connections.values) { connection.closeNow() }
    }

    private func acceptConnection(_ server: UnsafeMutablePointer<uv_stream_t>) {
        let connection = ClientConnection(owner: self)
        guard connection.accept(from: server) else { return }
        connections[ObjectIdentifier(connection)] = connection
        // A refusal lingers briefly and counts meanwhile: the admin port is the operator's.
        if connections.count > shared.configuration.limits.maxConnections {
            connection.refuseOverloaded(lingering: true)
        }
    }

    func forget(_ connection: ClientConnection) -> Bool {
        connections.removeValue(forKey: ObjectIdentifier(connection)) != nil
    }

    /// Admin connections never wait for a cached answer.
    var mailbox: LoopMailbox? { nil }
    var sharedCache: RedisClient? { nil }
    var sharedLimits: RedisClient? { nil }

    /// Admin connections never serve a route, so never a stale answer to refresh.
    /// The admin listener serves no routes, so no answer of its own asks for a refresh; should
    /// one ever be handed here, its cache key is given back rather than led forever.
    func runInBackground(_ refresh: RequestLifecycle) { RequestDriver.drop(refresh) }

    func fillReadBuffer(_ buffer: UnsafeMutablePointer<uv_buf_t>?) {
        buffer?.pointee = uv_buf_init(readBuffer.assumingMemoryBound(to: CChar.self), 64 * 1024)
    }
}
