import ReshapeProxy

/// Everything `reshape serve` was told.
package struct ServerConfiguration: Sendable {
    package var rulesPath: String
    package var listenHost: String
    package var listenPort: Int
    /// Where the admin endpoints listen on their own; nil serves them on the main port.
    package var adminListen: (host: String, port: Int)?
    package var workers: Int
    package var limits: ServerLimits
    /// How long in-flight requests may take to finish after SIGTERM.
    package var drainTimeoutMilliseconds: Int
    package var accessLog: Bool
    /// The answer cache's bound (`--cache-bytes`); 0 turns caching off.
    package var cacheBytes: Int
    /// The cache replicas share (`--cache-redis`); nil: each replica has only its own.
    package var redis: RedisAddress?
    /// Every shared-cache command's bound; a later answer is a miss.
    package var redisTimeoutMilliseconds = 50
    /// Reload the rules when their files change (`--no-watch-rules` turns it off).
    package var watchRules = true
    /// How long the rules must be quiet after a change before they are reloaded.
    package var watchDebounceMilliseconds = 1000
    /// Where spans are exported (OTLP/HTTP JSON); nil: no spans are built.
    package var otlpEndpoint: String?
    /// The `service.name` the spans carry (`OTEL_SERVICE_NAME`).
    package var serviceName = "reshape"
    /// The share of traces started here that are sampled (`--trace-sample-ratio`).
    package var traceSampleRatio = 1.0
    /// JSON answers from this many bytes are compressed for clients that accept it
    /// (`--compress-min-bytes`); 0 compresses every one.
    package var compressMinBytes = AnswerCompression.defaultMinimumBytes
    /// A live route's upstream stream that sends nothing, keep-alives included, for this long
    /// is dropped and reconnected: twice Firebase's keep-alive period.
    package var liveStallSeconds = 60
    /// A worker whose loop runs this late sheds new route requests (`--max-loop-lag`); nil: never.
    package var maxLoopLagMilliseconds: Int?
    /// Rate-limit keys the process holds at most (`--limit-keys`), least recently seen forgotten first.
    package var limitKeys = 100_000
    /// Peers whose `X-Forwarded-For` is believed for `client-address` limits (`--trusted-proxies`).
    package var trustedProxies: [AddressRange] = []
    /// Where replicas share their rate limits (`--limits-redis`, else `--cache-redis`'s); nil:
    /// each process limits alone.
    package var limitsRedis: RedisAddress?
    /// A shared limit check's bound; a later answer leaves the decision to the process's table.
    package var limitsRedisTimeoutMilliseconds = 20
    /// The memory budget for requests in flight (`--max-inflight-bytes`); 0: none.
    package var maxInflightBytes = 1 << 30

    package init(
        rulesPath: String, listenHost: String = "127.0.0.1", listenPort: Int = 8080,
        adminListen: (host: String, port: Int)? = nil, workers: Int = 1,
        limits: ServerLimits = ServerLimits(), drainTimeoutMilliseconds: Int = 10_000, accessLog: Bool = true,
        cacheBytes: Int = 64 << 20, redis: RedisAddress? = nil
    ) {
        self.rulesPath = rulesPath
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.adminListen = adminListen
        self.workers = workers
        self.limits = limits
        self.drainTimeoutMilliseconds = drainTimeoutMilliseconds
        self.accessLog = accessLog
        self.cacheBytes = cacheBytes
        self.redis = redis
    }
}
