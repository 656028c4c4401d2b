import CHiredis
import CLibUV
import ReshapeProxy

/// The replicas' shared rate limits: one GCRA script run per request (`SharedLimitCheck`),
/// by EVALSHA once the script is loaded, by EVAL before that and whenever Redis has lost it
/// (`NOSCRIPT`: restarted, or `SCRIPT FLUSH`). Bounded by `--limits-redis-timeout`: a late,
/// failed or strange answer is nil, and the process's own table decides.
///
/// hiredis keeps every command it sent until its reply or the disconnect, so a Redis that
/// hangs (paused, blackholed) must not be sent more and more: beyond
/// `maxOutstandingLimitChecks` unanswered checks the table decides at once and nothing is
/// sent, and after `maxLimitTimeoutsInARow` checks in a row that gave up waiting, with no
/// answer at all (late ones count) for four timeouts, the connection is dropped (logged as an
/// outage, then reconnected every second).
extension RedisClient {
    static let maxOutstandingLimitChecks = 256
    static let maxLimitTimeoutsInARow = 8

    /// Runs the check; `completion` gets the script's integers or nil, exactly once, on this loop.
    func checkLimits(_ check: SharedLimitCheck, completion: @escaping ([Int]?) -> Void) {
        guard let context = connectedContext, outstandingLimitChecks < Self.maxOutstandingLimitChecks else {
            return completion(nil)
        }
        let pending = PendingLimitCheck(client: self, check: check, completion: completion)
        guard pending.send(context, script: scriptSHA.map { .sha($0) } ?? .text) else { return }
        pending.startTimer(loop: loop, milliseconds: commandTimeoutMilliseconds)
    }

    /// A check gave up waiting: after too many in a row, with nothing heard from Redis for
    /// a few timeouts (a slow Redis that still answers, late, is kept), it is taken as gone.
    fileprivate func limitCheckTimedOut() {
        limitTimeoutsInARow += 1
        let silence = uv_now(loop) &- lastLimitReplyAt
        guard limitTimeoutsInARow >= Self.maxLimitTimeoutsInARow,
            silence >= UInt64(4 * max(1, commandTimeoutMilliseconds))
        else { return }
        abandon("no answer to \(limitTimeoutsInARow) rate-limit checks in a row")
    }

    /// Loads the script so requests can name it by its SHA-1.
    func loadScript(_ context: UnsafeMutablePointer<redisAsyncContext>) {
        lastLimitReplyAt = uv_now(loop)
        _ = send(
            context, ["SCRIPT", "LOAD", SharedLimitCheck.script].map { Array($0.utf8) }, privateData: nil
        ) { context, reply, _ in
            guard let context, let data = reshape_redis_get_data(context) else { return }
            let client = Unmanaged<RedisClient>.fromOpaque(data).takeUnretainedValue()
            var length = 0
            guard let bytes = reshape_redis_reply_string(reply, &length) else { return }
            client.scriptSHA = String(
                decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }
}

/// One limit check waiting for Redis or its deadline, whichever comes first.
private final class PendingLimitCheck {
    enum Script {
        case sha(String)
        case text
    }

    unowned let client: RedisClient
    let check: SharedLimitCheck
    private var completion: (([Int]?) -> Void)?
    private var timer: UnsafeMutablePointer<uv_timer_t>?

    init(client: RedisClient, check: SharedLimitCheck, completion: @escaping ([Int]?) -> Void) {
        self.client = client
        self.check = check
        self.completion = completion
    }

    /// Sends EVALSHA or EVAL, retained by hiredis until its reply; false when it could not
    /// be sent (then it has finished with nil already).
    func send(_ context: UnsafeMutablePointer<redisAsyncContext>, script: Script) -> Bool {
        let head: [String] =
            switch script {
            case .sha(let sha): ["EVALSHA", sha]
            case .text: ["EVAL", SharedLimitCheck.script]
            }
        let arguments = (head + [String(check.keys.count)] + check.keys + check.arguments).map { Array($0.utf8) }
        let retained = Unmanaged.passRetained(self).toOpaque()
        let status = client.send(context, arguments, privateData: retained) { context, reply, data in
            guard let data else { return }
            let pending = Unmanaged<PendingLimitCheck>.fromOpaque(data).takeRetainedValue()
            pending.client.outstandingLimitChecks -= 1
            if reply != nil {
                // Redis answered, in time or not: it is alive.
                pending.client.limitTimeoutsInARow = 0
                pending.client.lastLimitReplyAt = uv_now(pending.client.loop)
            }
            pending.answered(context, reply)
        }
        guard status == REDIS_OK else {
            Unmanaged<PendingLimitCheck>.fromOpaque(retained).release()
            finish(nil)
            return false
        }
        client.outstandingLimitChecks += 1
        return true
    }

    private func answered(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?) {
        guard completion != nil else { return }  // timed out already
        if reshape_redis_reply_error_starts(reply, "NOSCRIPT") != 0, let context {
            // Redis lost the script: this request sends it whole, and it is loaded again.
            client.scriptSHA = nil
            client.loadScript(context)
            _ = send(context, script: .text)
            return
        }
        var values = [Int64](repeating: 0, count: check.keys.count * 3)
        let count = values.withUnsafeMutableBufferPointer {
            reshape_redis_reply_integers(reply, $0.baseAddress, $0.count)
        }
        finish(count == values.count ? values.map { Int($0) } : nil)
    }

    /// Arms the deadline from now: the loop's cached time may be well behind after the work
    /// of this iteration, which would make the check overdue before it is sent.
    func startTimer(loop: UnsafeMutablePointer<uv_loop_t>, milliseconds: Int) {
        guard completion != nil else { return }  // answered already
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        self.timer = timer
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_update_time(loop)
        uv_timer_start(
            timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                // Still retained by hiredis until its reply (or disconnect) callback.
                Unmanaged<PendingLimitCheck>.fromOpaque(data).takeUnretainedValue().deadlinePassed()
            }, UInt64(max(1, milliseconds)), 0)
    }

    /// Timers run before the loop polls its sockets: a reply that is already in the socket
    /// is read first (hiredis reads without blocking), and only then does the check give up.
    private func deadlinePassed() {
        let client = client
        if let context = client.connectedContext { redisAsyncHandleRead(context) }
        guard completion != nil else { return }  // that read answered it
        finish(nil)
        client.limitCheckTimedOut()
    }

    private func finish(_ values: [Int]?) {
        guard let completion else { return }
        self.completion = nil
        if let timer {
            self.timer = nil
            uv_timer_stop(timer)
            uv_close(reshape_timer_handle(timer)) { $0?.deallocate() }
        }
        completion(values)
    }
}
