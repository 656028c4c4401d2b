import CHiredis
import CLibUV

/// One command waiting for Redis or its deadline, whichever comes first (hiredis 0.14 has no
/// asynchronous command timeout, so each command arms a loop timer of its own). It also keeps
/// the client's count of what a hung Redis costs (`RedisClient.commandSent`, `replyArrived`,
/// `commandTimedOut`). A subclass says what a reply and a timeout mean; either ends it once.
class PendingRedisCommand {
    unowned let client: RedisClient
    private var timer: UnsafeMutablePointer<uv_timer_t>?
    /// Answered, given up on, or never sent: whatever comes later is ignored.
    private(set) var isSettled = false

    init(client: RedisClient) {
        self.client = client
    }

    /// The reply, or nil when the connection went away first. Called once per send.
    func answered(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?) {
        preconditionFailure("\(Self.self) says what its reply means")
    }

    /// The deadline passed with no reply.
    func timedOut() {
        preconditionFailure("\(Self.self) says what a timeout means")
    }

    /// Sends the command, retained by hiredis until its reply or the disconnect; false when it
    /// could not be sent (nothing is retained then).
    final func send(_ context: UnsafeMutablePointer<redisAsyncContext>, _ arguments: [[UInt8]]) -> Bool {
        let retained = Unmanaged.passRetained(self).toOpaque()
        let status = client.send(context, arguments, privateData: retained) { context, reply, data in
            guard let data else { return }
            let pending = Unmanaged<PendingRedisCommand>.fromOpaque(data).takeRetainedValue()
            pending.client.replyArrived(reply != nil)
            guard !pending.isSettled else { return }
            pending.answered(context, reply)
        }
        guard status == REDIS_OK else {
            Unmanaged<PendingRedisCommand>.fromOpaque(retained).release()
            return false
        }
        client.commandSent()
        return true
    }

    /// Arms the deadline from now: the loop's cached time may be well behind after the work
    /// of this iteration, which would make the command overdue before it is sent.
    final func startDeadline() {
        guard !isSettled, timer == nil else { return }
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        self.timer = timer
        uv_timer_init(client.loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_update_time(client.loop)
        uv_timer_start(
            timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                // Still retained by hiredis until its reply (or disconnect) callback.
                Unmanaged<PendingRedisCommand>.fromOpaque(data).takeUnretainedValue().deadlinePassed()
            }, UInt64(max(1, client.commandTimeoutMilliseconds)), 0)
    }

    /// Timers run before the loop polls its sockets: a reply that is already in the socket
    /// is read first (hiredis reads without blocking), and only then does the command give up.
    private func deadlinePassed() {
        let client = client
        if let context = client.connectedContext { redisAsyncHandleRead(context) }
        guard !isSettled else { return }  // that read answered it
        timedOut()
        settle()
        client.commandTimedOut()
    }

    /// Ends the command: its deadline stops, and nothing after this reaches the subclass.
    final func settle() {
        guard !isSettled else { return }
        isSettled = true
        guard let timer else { return }
        self.timer = nil
        uv_timer_stop(timer)
        uv_close(reshape_timer_handle(timer)) { $0?.deallocate() }
    }
}
