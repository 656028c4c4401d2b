import CHiredis
import CLibUV
import Glibc
import ReshapeJSON
import ReshapeProxy

/// One worker's connection to the shared cache (or the shared rate limits), driven by the
/// worker's libuv loop through hiredis's adapter. Redis is never allowed to fail a request:
/// every GET is bounded by its own deadline (`PendingRedisCommand`) and a late, failed or
/// impossible answer is a miss; SETs are fire-and-forget. A lost connection is logged once,
/// counted, and retried every second; one that stops answering is dropped the same way.
final class RedisClient {
    let loop: UnsafeMutablePointer<uv_loop_t>
    private let address: RedisAddress
    let commandTimeoutMilliseconds: Int
    let metrics: Metrics
    /// What the connection is for: the shared cache, or the replicas' shared rate limits
    /// (`RedisClient+Limits.swift`), each on a connection and with a timeout of its own.
    enum Role {
        case cache
        case limits
    }
    let role: Role
    /// The GCRA script's SHA-1 once Redis has it loaded (`SCRIPT LOAD` on connect); nil: EVAL.
    var scriptSHA: String?
    /// Commands sent and not yet answered by hiredis (a reply or the disconnect), and those
    /// that gave up waiting in a row: they bound what a hung Redis costs.
    private(set) var outstandingCommands = 0
    private var timeoutsInARow = 0
    /// When Redis last answered a command, late or not (or connected): the loop's ms.
    private var lastReplyAt: UInt64 = 0
    /// hiredis keeps every command it sent until its reply or the disconnect, so a Redis that
    /// hangs (paused, blackholed) must not be sent more and more: beyond this many unanswered
    /// commands the caller decides at once and nothing is sent.
    static let maxOutstandingCommands = 256
    /// After this many commands in a row gave up waiting, with no answer at all (late ones
    /// count) for four timeouts, the connection is dropped (logged as an outage, then
    /// reconnected every second).
    static let maxTimeoutsInARow = 8
    /// Where the connection is. `reported`: the outage is logged already (once per outage, not
    /// once per failed command).
    private enum Connection {
        /// No connection; the reconnect timer will try again.
        case waiting(reported: Bool)
        /// hiredis is connecting; its connect callback says how it went.
        case connecting(UnsafeMutablePointer<redisAsyncContext>, reported: Bool)
        /// Connected; `reported`: the outage is still logged, for Redis has not answered since
        /// (a paused Redis accepts connections it never answers on).
        case connected(UnsafeMutablePointer<redisAsyncContext>, reported: Bool)
        /// Closed for good (the worker is stopping).
        case closed
    }

    private var connection = Connection.waiting(reported: false)
    private let reconnectTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)

    init(
        loop: UnsafeMutablePointer<uv_loop_t>, address: RedisAddress, commandTimeoutMilliseconds: Int, metrics: Metrics,
        role: Role = .cache
    ) {
        self.role = role
        self.loop = loop
        self.address = address
        self.commandTimeoutMilliseconds = commandTimeoutMilliseconds
        self.metrics = metrics
        uv_timer_init(loop, reconnectTimer)
        reconnectTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        connect()
    }

    /// The stored value, or nil (a miss, an error, no connection, or no answer in time).
    /// `completion` runs exactly once, on this loop.
    func get(_ key: String, completion: @escaping ([UInt8]?) -> Void) {
        guard let context = connectedContext, outstandingCommands < Self.maxOutstandingCommands else {
            metrics.recordSharedCache(.unavailable)
            return completion(nil)
        }
        let pending = PendingGet(client: self, completion: completion)
        guard pending.send(context, ["GET", key].map { Array($0.utf8) }) else {
            metrics.recordSharedCache(.error)
            return completion(nil)
        }
        pending.startDeadline()
    }

    /// Stores `value` for `milliseconds` (Redis expires it). Nothing waits for the answer.
    func set(_ key: String, _ value: [UInt8], milliseconds: Int) {
        guard case .connected(let context, _) = connection else { return }
        _ = send(
            context, [Array("SET".utf8), Array(key.utf8), value, Array("PX".utf8), Array(String(milliseconds).utf8)],
            privateData: nil, callback: nil)
    }

    func close() {
        let context: UnsafeMutablePointer<redisAsyncContext>? =
            switch connection {
            case .connecting(let context, _), .connected(let context, _): context
            case .waiting, .closed: nil
            }
        // Closed first: freeing the context runs its disconnect callback, which must not reconnect.
        connection = .closed
        uv_timer_stop(reconnectTimer)
        uv_close(reshape_timer_handle(reconnectTimer)) { $0?.deallocate() }
        if let context { redisAsyncFree(context) }
    }

    /// Whether the outage in progress is logged already.
    private var reported: Bool {
        switch connection {
        case .waiting(let reported), .connecting(_, let reported), .connected(_, let reported): reported
        case .closed: false
        }
    }

    // MARK: - Connection

    private func connect() {
        guard case .waiting(let reported) = connection else { return }
        guard let context = redisAsyncConnect(address.ip, Int32(address.port)) else {
            return scheduleReconnect()
        }
        if reshape_redis_has_error(context) != 0
            || reshape_redis_attach(context, UnsafeMutableRawPointer(loop)) != REDIS_OK
        {
            down(String(cString: reshape_redis_error(context)))
            redisAsyncFree(context)
            return scheduleReconnect()
        }
        connection = .connecting(context, reported: reported)
        reshape_redis_set_data(context, Unmanaged.passUnretained(self).toOpaque())
        redisAsyncSetConnectCallback(context) { context, status in
            guard let context, let data = reshape_redis_get_data(context) else { return }
            let client = Unmanaged<RedisClient>.fromOpaque(data).takeUnretainedValue()
            guard case .connecting(let own, _) = client.connection else { return }
            if status == REDIS_OK {
                client.up(own)
            } else {
                // hiredis frees the context after this callback.
                client.down(String(cString: reshape_redis_error(context)))
                client.scheduleReconnect()
            }
        }
        redisAsyncSetDisconnectCallback(context) { context, _ in
            guard let context, let data = reshape_redis_get_data(context) else { return }
            let client = Unmanaged<RedisClient>.fromOpaque(data).takeUnretainedValue()
            // Closed, or dropped by `abandon` (its free runs this too): that outage is counted.
            guard case .connected(let own, _) = client.connection, own == context else { return }
            client.down(
                reshape_redis_has_error(context) != 0
                    ? String(cString: reshape_redis_error(context)) : "connection closed")
            client.scheduleReconnect()
        }
        if address.database != 0 {
            _ = send(
                context, ["SELECT", String(address.database)].map { Array($0.utf8) }, privateData: nil, callback: nil)
        }
    }

    private func up(_ context: UnsafeMutablePointer<redisAsyncContext>) {
        connection = .connected(context, reported: reported)
        lastReplyAt = uv_now(loop)
        timeoutsInARow = 0
        if role == .limits { loadScript(context) }
        // Its answer says Redis is back, and ends a logged outage.
        _ = send(context, [Array("PING".utf8)], privateData: nil) { context, reply, _ in
            guard reply != nil, let context, let data = reshape_redis_get_data(context) else { return }
            Unmanaged<RedisClient>.fromOpaque(data).takeUnretainedValue().heardFrom()
        }
    }

    /// Redis answered something: it is alive, and an outage logged is over.
    func heardFrom() {
        timeoutsInARow = 0
        lastReplyAt = uv_now(loop)
        guard case .connected(let context, reported: true) = connection else { return }
        connection = .connected(context, reported: false)
        Log.event(
            role == .cache ? "shared cache reachable again" : "shared rate limits reachable again",
            ["redis": .string("\(address.host):\(address.port)")])
    }

    /// The connection failed or was lost (hiredis frees its context): logged once per outage.
    private func down(_ reason: String) {
        let wasReported = reported
        connection = .waiting(reported: true)
        scriptSHA = nil
        if role == .cache { metrics.recordSharedCache(.error) }
        guard !wasReported else { return }
        Log.event(
            role == .cache
                ? "shared cache unavailable; serving from this replica's cache and the upstreams"
                : "shared rate limits unavailable; this replica's own limits decide",
            ["redis": .string("\(address.host):\(address.port)"), "error": .string(reason)])
    }

    private func scheduleReconnect() {
        if case .closed = connection { return }
        uv_timer_start(
            reconnectTimer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<RedisClient>.fromOpaque(data).takeUnretainedValue().connect()
            }, 1000, 0)
    }

    /// Drops a connection that has stopped answering: hiredis fails every command still
    /// waiting (`redisAsyncDisconnect` would wait for their replies first), the outage is
    /// logged once, and the reconnect timer tries again.
    func abandon(_ reason: String) {
        guard case .connected(let context, _) = connection else { return }
        timeoutsInARow = 0
        down(reason)
        scheduleReconnect()
        redisAsyncFree(context)
    }

    func commandSent() { outstandingCommands += 1 }

    /// hiredis is done with a command: `replied`, in time or not (Redis is alive), or failed
    /// by the disconnect.
    func replyArrived(_ replied: Bool) {
        outstandingCommands -= 1
        if replied { heardFrom() }
    }

    /// A command gave up waiting: after too many in a row, with nothing heard from Redis for
    /// a few timeouts (a slow Redis that still answers, late, is kept), it is taken as gone.
    func commandTimedOut() {
        timeoutsInARow += 1
        let silence = uv_now(loop) &- lastReplyAt
        guard timeoutsInARow >= Self.maxTimeoutsInARow,
            silence >= UInt64(4 * max(1, commandTimeoutMilliseconds))
        else { return }
        let commands = role == .limits ? "rate-limit checks" : "cache lookups"
        abandon("no answer to \(timeoutsInARow) \(commands) in a row")
    }

    /// The connection, when it is up.
    var connectedContext: UnsafeMutablePointer<redisAsyncContext>? {
        if case .connected(let context, _) = connection { return context }
        return nil
    }

    /// A command as binary-safe arguments.
    func send(
        _ context: UnsafeMutablePointer<redisAsyncContext>, _ arguments: [[UInt8]],
        privateData: UnsafeMutableRawPointer?, callback: ReplyCallback?
    ) -> Int32 {
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int] = []
        let buffers = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, argument.count))
            argument.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress {
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: argument.count)
                }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        for (buffer, argument) in zip(buffers, arguments) {
            pointers.append(UnsafePointer(buffer))
            lengths.append(argument.count)
        }
        // hiredis formats the command into its own output buffer before this returns.
        return redisAsyncCommandArgv(context, callback, privateData, Int32(arguments.count), &pointers, lengths)
    }
}

/// hiredis's reply callback: the context, the reply (nil when the connection went away), the
/// command's private data.
typealias ReplyCallback =
    @convention(c) (UnsafeMutablePointer<redisAsyncContext>?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) ->
    Void

/// One GET: its value, or nil for a miss, an error or no answer in time.
private final class PendingGet: PendingRedisCommand {
    private let completion: ([UInt8]?) -> Void

    init(client: RedisClient, completion: @escaping ([UInt8]?) -> Void) {
        self.completion = completion
        super.init(client: client)
    }

    override func answered(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?) {
        var length = 0
        if let bytes = reshape_redis_reply_string(reply, &length) {
            finish(Array(UnsafeRawBufferPointer(start: bytes, count: length)), .hit)
        } else {
            finish(nil, reshape_redis_reply_failed(reply) != 0 ? .error : .miss)
        }
    }

    override func timedOut() { finish(nil, .timeout) }

    private func finish(_ value: [UInt8]?, _ outcome: Metrics.SharedCacheOutcome) {
        guard !isSettled else { return }
        settle()
        client.metrics.recordSharedCache(outcome)
        completion(value)
    }
}
