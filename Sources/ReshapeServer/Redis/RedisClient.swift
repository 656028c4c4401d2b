import CHiredis
import CLibUV
import Glibc
import ReshapeJSON
import ReshapeProxy

/// One worker's connection to the shared cache, driven by the worker's libuv loop through
/// hiredis's adapter. Redis is never allowed to fail a request: every GET is bounded by its own
/// loop timer (hiredis 0.14 has no asynchronous command timeout) and a late, failed or
/// impossible answer is a miss; SETs are fire-and-forget. A lost connection is logged once,
/// counted, and retried every second.
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
    /// Limit checks sent and not yet answered by hiredis (a reply or the disconnect), and the
    /// checks that gave up waiting in a row: they bound what a hung Redis costs
    /// (`RedisClient+Limits.swift`).
    var outstandingLimitChecks = 0
    var limitTimeoutsInARow = 0
    /// When Redis last answered a limit check, late or not (or connected): the loop's ms.
    var lastLimitReplyAt: UInt64 = 0
    /// Where the connection is. `reported`: the outage is logged already (once per outage, not
    /// once per failed command).
    private enum Connection {
        /// No connection; the reconnect timer will try again.
        case waiting(reported: Bool)
        /// hiredis is connecting; its connect callback says how it went.
        case connecting(UnsafeMutablePointer<redisAsyncContext>, reported: Bool)
        case connected(UnsafeMutablePointer<redisAsyncContext>)
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
        guard case .connected(let context) = connection else {
            metrics.recordSharedCache(.unavailable)
            return completion(nil)
        }
        let pending = PendingGet(client: self, completion: completion)
        let retained = Unmanaged.passRetained(pending).toOpaque()
        let status = send(context, ["GET", key].map { Array($0.utf8) }, privateData: retained) { context, reply, data in
            guard let data else { return }
            let pending = Unmanaged<PendingGet>.fromOpaque(data).takeRetainedValue()
            var length = 0
            if let bytes = reshape_redis_reply_string(reply, &length) {
                pending.finish(Array(UnsafeRawBufferPointer(start: bytes, count: length)), .hit)
            } else {
                pending.finish(nil, reshape_redis_reply_failed(reply) != 0 ? .error : .miss)
            }
        }
        guard status == REDIS_OK else {
            Unmanaged<PendingGet>.fromOpaque(retained).release()
            metrics.recordSharedCache(.error)
            return completion(nil)
        }
        pending.startTimer(loop: loop, milliseconds: commandTimeoutMilliseconds)
    }

    /// Stores `value` for `milliseconds` (Redis expires it). Nothing waits for the answer.
    func set(_ key: String, _ value: [UInt8], milliseconds: Int) {
        guard case .connected(let context) = connection else { return }
        _ = send(
            context, [Array("SET".utf8), Array(key.utf8), value, Array("PX".utf8), Array(String(milliseconds).utf8)],
            privateData: nil, callback: nil)
    }

    func close() {
        let context: UnsafeMutablePointer<redisAsyncContext>? =
            switch connection {
            case .connecting(let context, _), .connected(let context): context
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
        case .waiting(let reported), .connecting(_, let reported): reported
        case .connected, .closed: false
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
            if case .closed = client.connection { return }
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
        let wasReported = reported
        connection = .connected(context)
        if role == .limits { loadScript(context) }
        if wasReported {
            Log.event(
                role == .cache ? "shared cache reachable again" : "shared rate limits reachable again",
                ["redis": .string("\(address.host):\(address.port)")])
        }
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
        guard case .connected(let context) = connection else { return }
        limitTimeoutsInARow = 0
        down(reason)
        scheduleReconnect()
        redisAsyncFree(context)
    }

    /// The connection, when it is up.
    var connectedContext: UnsafeMutablePointer<redisAsyncContext>? {
        if case .connected(let context) = connection { return context }
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

/// One GET waiting for Redis or its deadline, whichever comes first.
private final class PendingGet {
    unowned let client: RedisClient
    private var completion: (([UInt8]?) -> Void)?
    private var timer: UnsafeMutablePointer<uv_timer_t>?

    init(client: RedisClient, completion: @escaping ([UInt8]?) -> Void) {
        self.client = client
        self.completion = completion
    }

    func startTimer(loop: UnsafeMutablePointer<uv_loop_t>, milliseconds: Int) {
        guard completion != nil else { return }  // answered already
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        self.timer = timer
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        // From now, not from the loop's cached time: a lookup sent after a long pipeline in this
        // turn would otherwise be overdue as it is sent.
        uv_update_time(loop)
        uv_timer_start(
            timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                // Still retained by hiredis until its reply (or disconnect) callback.
                Unmanaged<PendingGet>.fromOpaque(data).takeUnretainedValue().finish(nil, .timeout)
            }, UInt64(max(1, milliseconds)), 0)
    }

    func finish(_ value: [UInt8]?, _ outcome: Metrics.SharedCacheOutcome) {
        guard let completion else { return }
        self.completion = nil
        if let timer {
            self.timer = nil
            uv_timer_stop(timer)
            uv_close(reshape_timer_handle(timer)) { $0?.deallocate() }
        }
        client.metricsRecord(outcome)
        completion(value)
    }
}

extension RedisClient {
    fileprivate func metricsRecord(_ outcome: Metrics.SharedCacheOutcome) { metrics.recordSharedCache(outcome) }
}
