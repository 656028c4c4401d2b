import CHiredis
import CLibUV
import ReshapeProxy

/// The replicas' shared rate limits: one GCRA script run per request (`SharedLimitCheck`),
/// by EVALSHA once the script is loaded, by EVAL before that and whenever Redis has lost it
/// (`NOSCRIPT`: restarted, or `SCRIPT FLUSH`). Bounded by `--limits-redis-timeout`: a late,
/// failed or strange answer is nil, and the process's own table decides. A hung Redis is
/// bounded as for the cache (`RedisClient.maxOutstandingCommands`, `commandTimedOut`).
extension RedisClient {
    /// Runs the check; `completion` gets the script's integers or nil, exactly once, on this loop.
    func checkLimits(_ check: SharedLimitCheck, completion: @escaping ([Int]?) -> Void) {
        guard let context = connectedContext, outstandingCommands < Self.maxOutstandingCommands else {
            return completion(nil)
        }
        let pending = PendingLimitCheck(client: self, check: check, completion: completion)
        guard pending.send(context, script: scriptSHA.map { .sha($0) } ?? .text) else { return }
        pending.startDeadline()
    }

    /// Loads the script so requests can name it by its SHA-1.
    func loadScript(_ context: UnsafeMutablePointer<redisAsyncContext>) {
        _ = send(
            context, ["SCRIPT", "LOAD", SharedLimitCheck.script].map { Array($0.utf8) }, privateData: nil
        ) { context, reply, _ in
            guard let context, let data = reshape_redis_get_data(context) else { return }
            let client = Unmanaged<RedisClient>.fromOpaque(data).takeUnretainedValue()
            if reply != nil { client.heardFrom() }
            var length = 0
            guard let bytes = reshape_redis_reply_string(reply, &length) else { return }
            client.scriptSHA = String(
                decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }
}

/// One limit check: the script's integers, or nil.
private final class PendingLimitCheck: PendingRedisCommand {
    enum Script {
        case sha(String)
        case text
    }

    let check: SharedLimitCheck
    private let completion: ([Int]?) -> Void

    init(client: RedisClient, check: SharedLimitCheck, completion: @escaping ([Int]?) -> Void) {
        self.check = check
        self.completion = completion
        super.init(client: client)
    }

    /// Sends EVALSHA or EVAL; false when it could not be sent (then it has finished with nil).
    func send(_ context: UnsafeMutablePointer<redisAsyncContext>, script: Script) -> Bool {
        let head: [String] =
            switch script {
            case .sha(let sha): ["EVALSHA", sha]
            case .text: ["EVAL", SharedLimitCheck.script]
            }
        let arguments = (head + [String(check.keys.count)] + check.keys + check.arguments).map { Array($0.utf8) }
        guard send(context, arguments) else {
            finish(nil)
            return false
        }
        return true
    }

    override func answered(_ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?) {
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

    override func timedOut() { finish(nil) }

    private func finish(_ values: [Int]?) {
        guard !isSettled else { return }
        settle()
        completion(values)
    }
}
