import ArgumentParser
import Glibc
import ReshapeProxy
import ReshapeRules
import ReshapeServer

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the rules: fetch upstreams, reshape, validate, answer normalized JSON.",
        discussion: """
            Every option can also be set by the environment variable in brackets; a flag wins over \
            its variable. SIGHUP, or a change to the rules' files, reloads the rules (a bad new set is refused, the old one kept); \
            SIGTERM stops accepting, finishes in-flight requests (up to --drain-timeout) and exits 0, \
            or 3 when the timeout cut some off. \
            Health: /_reshape/live, /_reshape/ready; Prometheus metrics: /_reshape/metrics; on the main \
            port, or only on --admin-listen's when it is set. \
            One JSON access-log line per request goes to standard output, other logs to standard error.

              reshape serve --rules examples/rules --listen 127.0.0.1:8080
              RESHAPE_LISTEN=0.0.0.0:8080 RESHAPE_RULES=/etc/reshape/rules reshape serve
              RESHAPE_ADMIN_LISTEN=0.0.0.0:8090 reshape serve --rules examples/rules
            """)

    @Option(name: .long, help: ArgumentHelp("Rules directory or file [RESHAPE_RULES].", valueName: "path"))
    var rules: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Address to listen on (default 127.0.0.1:8080) [RESHAPE_LISTEN].", valueName: "host:port"))
    var listen: String?

    @Option(
        name: .customLong("admin-listen"),
        help: ArgumentHelp(
            "Serve /_reshape/* on this address only, not on --listen's (default: on --listen's) [RESHAPE_ADMIN_LISTEN].",
            valueName: "host:port"))
    var adminListen: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Event-loop threads (default: the number of cores) [RESHAPE_WORKERS].", valueName: "n"))
    var workers: Int?

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Open connections per worker before new ones get 503 (default 10000) [RESHAPE_MAX_CONNECTIONS].",
            valueName: "n"))
    var maxConnections: Int?

    @Option(
        name: .customLong("max-header-bytes"),
        help: ArgumentHelp(
            "Request line plus headers, 431 past it (default 16384) [RESHAPE_MAX_HEADER_BYTES].", valueName: "bytes"))
    var maxHeaderBytes: Int?

    @Option(
        name: .customLong("max-url-bytes"),
        help: ArgumentHelp(
            "Request target length, 414 past it (default 8192) [RESHAPE_MAX_URL_BYTES].", valueName: "bytes"))
    var maxURLBytes: Int?

    @Option(
        name: .customLong("max-body-bytes"),
        help: ArgumentHelp(
            "Request body size, 413 past it (default 1048576) [RESHAPE_MAX_BODY_BYTES].", valueName: "bytes"))
    var maxBodyBytes: Int?

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp(
            "Milliseconds a client may take to send its request head, 408 past it (default 10000) [RESHAPE_HEADER_TIMEOUT].",
            valueName: "ms"))
    var headerTimeout: Int?

    @Option(
        name: .customLong("body-timeout"),
        help: ArgumentHelp(
            "Milliseconds a client may take to send a request body once its head is in, 408 past it (default 30000) [RESHAPE_BODY_TIMEOUT].",
            valueName: "ms"))
    var bodyTimeout: Int?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Milliseconds an idle keep-alive connection stays open (default 60000) [RESHAPE_IDLE_TIMEOUT].",
            valueName: "ms"))
    var idleTimeout: Int?

    @Option(
        name: .customLong("drain-timeout"),
        help: ArgumentHelp(
            "Milliseconds in-flight requests get after SIGTERM (default 10000) [RESHAPE_DRAIN_TIMEOUT].",
            valueName: "ms"))
    var drainTimeout: Int?

    @Option(
        name: .customLong("cache-bytes"),
        help: ArgumentHelp(
            "Memory bound of the answer cache for routes with `cache:`, like 64MiB; 0 turns caching off (default 64MiB) [RESHAPE_CACHE_BYTES].",
            valueName: "size"))
    var cacheBytes: String?

    @Option(
        name: .customLong("cache-redis"),
        help: ArgumentHelp(
            "A cache shared by replicas, in front of which each keeps its own: redis://host[:port][/db] (default: none) [RESHAPE_CACHE_REDIS].",
            valueName: "url"))
    var cacheRedis: String?

    @Option(
        name: .customLong("cache-redis-timeout"),
        help: ArgumentHelp(
            "Milliseconds a shared-cache lookup may take before it counts as a miss (default 50) [RESHAPE_CACHE_REDIS_TIMEOUT].",
            valueName: "ms"))
    var cacheRedisTimeout: Int?

    @Option(
        name: .customLong("compress-min-bytes"),
        help: ArgumentHelp(
            "JSON answers of at least this many bytes are compressed (gzip, br, zstd) for clients that accept it; 0 compresses every one (default 1024) [RESHAPE_COMPRESS_MIN_BYTES].",
            valueName: "bytes"))
    var compressMinBytes: Int?

    @Option(
        name: .customLong("max-loop-lag"),
        help: ArgumentHelp(
            "A worker whose event loop runs this late, like 250ms, answers new route requests 503 load-shed until it catches up; health endpoints never are (default: off) [RESHAPE_MAX_LOOP_LAG].",
            valueName: "duration"))
    var maxLoopLag: String?

    @Option(
        name: .customLong("live-stall-timeout"),
        help: ArgumentHelp(
            "Seconds a live route's upstream stream may send nothing, keep-alives included, before it is reconnected (default 60: twice Firebase's keep-alive) [RESHAPE_LIVE_STALL_TIMEOUT].",
            valueName: "seconds"))
    var liveStallTimeout: Int?

    @Option(
        name: .customLong("limit-keys"),
        help: ArgumentHelp(
            "Rate-limit keys the process holds at most, the least recently seen forgotten first (default 100000) [RESHAPE_LIMIT_KEYS].",
            valueName: "count"))
    var limitKeys: Int?

    @Option(
        name: .customLong("trusted-proxies"),
        help: ArgumentHelp(
            "Peers whose X-Forwarded-For is believed for client-address rate limits: CIDR,... like 10.0.0.0/8,::1 (default: none) [RESHAPE_TRUSTED_PROXIES].",
            valueName: "cidrs"))
    var trustedProxies: String?

    @Option(
        name: .customLong("limits-redis"),
        help: ArgumentHelp(
            "Replicas share their rate limits here: redis://host[:port][/db], or none to keep them local (default: --cache-redis's, else none) [RESHAPE_LIMITS_REDIS].",
            valueName: "url"))
    var limitsRedis: String?

    @Option(
        name: .customLong("limits-redis-timeout"),
        help: ArgumentHelp(
            "Milliseconds a shared rate-limit check may take before this process's own limit decides (default 20) [RESHAPE_LIMITS_REDIS_TIMEOUT].",
            valueName: "ms"))
    var limitsRedisTimeout: Int?

    @Option(
        name: .customLong("max-inflight-bytes"),
        help: ArgumentHelp(
            "Memory budget for requests in flight (their upstream bodies, tapes and answers, until written), like 256MiB; beyond it fetches wait, then 503 load-shed; 0 turns it off (default: half the container's memory limit, else 1GiB) [RESHAPE_MAX_INFLIGHT_BYTES].",
            valueName: "size"))
    var maxInflightBytes: String?

    @Flag(name: .customLong("no-access-log"), help: "Do not write access-log lines [RESHAPE_ACCESS_LOG=off].")
    var noAccessLog = false

    @Flag(
        name: .customLong("no-watch-rules"),
        help: "Reload the rules only on SIGHUP, not when their files change [RESHAPE_WATCH_RULES=off].")
    var noWatchRules = false

    @Option(
        name: .customLong("watch-debounce"),
        help: ArgumentHelp(
            "Milliseconds the rules must be quiet after a change before they are reloaded (default 1000) [RESHAPE_WATCH_DEBOUNCE].",
            valueName: "ms"))
    var watchDebounce: Int?

    @Option(
        name: .customLong("otlp-endpoint"),
        help: ArgumentHelp(
            "Export spans by OTLP/HTTP JSON to this URL; without a path, its /v1/traces (default: none) [OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces].",
            valueName: "url"))
    var otlpEndpoint: String?

    @Option(
        name: .customLong("trace-sample-ratio"),
        help: ArgumentHelp(
            "Share of traces started here that are exported, 0 to 1; a client's traceparent flag wins (default 1) [RESHAPE_TRACE_SAMPLE_RATIO].",
            valueName: "ratio"))
    var traceSampleRatio: Double?

    func run() throws {
        let environment = LocalFiles.environment
        func setting(_ flag: Int?, _ variable: String, default fallback: Int) throws -> Int {
            if let flag {
                // A zero or negative bound would trap at the first timer or buffer it sizes.
                guard flag > 0 else {
                    Terminal.error("reshape: the option for \(variable) must be a positive whole number (got \(flag))")
                    throw ExitCode(2)
                }
                return flag
            }
            guard let text = environment[variable] else { return fallback }
            guard let value = Int(text), value > 0 else {
                Terminal.error("reshape: \(variable) must be a positive whole number (got '\(text)')")
                throw ExitCode(2)
            }
            return value
        }
        guard let rulesPath = rules ?? environment["RESHAPE_RULES"] else {
            Terminal.error("reshape: say where the rules are: --rules PATH or RESHAPE_RULES")
            throw ExitCode(2)
        }
        func hostAndPort(_ address: String, _ flag: String) throws -> (host: String, port: Int) {
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                Terminal.error("reshape: \(flag) takes HOST:PORT, like 127.0.0.1:8080 or [::]:8080 (got '\(address)')")
                throw ExitCode(2)
            }
            var host = String(address[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return (host, port)
        }
        let (host, port) = try hostAndPort(listen ?? environment["RESHAPE_LISTEN"] ?? "127.0.0.1:8080", "--listen")
        let admin = try (adminListen ?? environment["RESHAPE_ADMIN_LISTEN"]).map {
            try hostAndPort($0, "--admin-listen")
        }
        // The main sockets share their port (SO_REUSEPORT) and would split connections with an
        // admin listener on the same one.
        if let admin, admin.port != 0, admin.port == port {
            Terminal.error("reshape: --admin-listen needs a port of its own (\(port) is --listen's)")
            throw ExitCode(2)
        }
        var limits = ServerLimits()
        limits.maxConnections = try setting(maxConnections, "RESHAPE_MAX_CONNECTIONS", default: limits.maxConnections)
        limits.maxHeaderBytes = try setting(maxHeaderBytes, "RESHAPE_MAX_HEADER_BYTES", default: limits.maxHeaderBytes)
        limits.maxURLBytes = try setting(maxURLBytes, "RESHAPE_MAX_URL_BYTES", default: limits.maxURLBytes)
        limits.maxBodyBytes = try setting(maxBodyBytes, "RESHAPE_MAX_BODY_BYTES", default: limits.maxBodyBytes)
        limits.headerTimeoutMilliseconds = try setting(
            headerTimeout, "RESHAPE_HEADER_TIMEOUT", default: limits.headerTimeoutMilliseconds)
        limits.bodyTimeoutMilliseconds = try setting(
            bodyTimeout, "RESHAPE_BODY_TIMEOUT", default: limits.bodyTimeoutMilliseconds)
        limits.idleTimeoutMilliseconds = try setting(
            idleTimeout, "RESHAPE_IDLE_TIMEOUT", default: limits.idleTimeoutMilliseconds)
        let cacheText = cacheBytes ?? environment["RESHAPE_CACHE_BYTES"] ?? "64MiB"
        guard let cacheSize = cacheText == "0" ? 0 : Quantities.bytes(cacheText) else {
            Terminal.error(
                "reshape: --cache-bytes takes a size like 64MiB, 512KiB or 1048576, or 0 for no cache (got '\(cacheText)')"
            )
            throw ExitCode(2)
        }
        var redis: RedisAddress?
        if let url = cacheRedis ?? environment["RESHAPE_CACHE_REDIS"], !url.isEmpty {
            switch RedisAddress.resolve(url) {
            case .success(let address): redis = address
            case .failure(let error):
                Terminal.error("reshape: --cache-redis '\(RedisAddress.redacted(url))': \(error)")
                throw ExitCode(2)
            }
            if cacheSize == 0 {
                Terminal.error("reshape: --cache-redis needs the in-process cache in front of it (--cache-bytes is 0)")
                throw ExitCode(2)
            }
        }
        var configuration = ServerConfiguration(
            rulesPath: rulesPath, listenHost: host, listenPort: port, adminListen: admin,
            workers: try setting(workers, "RESHAPE_WORKERS", default: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))),
            limits: limits,
            drainTimeoutMilliseconds: try setting(drainTimeout, "RESHAPE_DRAIN_TIMEOUT", default: 10_000),
            accessLog: !noAccessLog && environment["RESHAPE_ACCESS_LOG"] != "off",
            cacheBytes: cacheSize, redis: redis)
        configuration.redisTimeoutMilliseconds = try setting(
            cacheRedisTimeout, "RESHAPE_CACHE_REDIS_TIMEOUT", default: 50)
        configuration.watchRules = !noWatchRules && environment["RESHAPE_WATCH_RULES"] != "off"
        configuration.watchDebounceMilliseconds = try setting(watchDebounce, "RESHAPE_WATCH_DEBOUNCE", default: 1000)
        switch OTLPEndpoint.traces(flag: otlpEndpoint, environment: environment) {
        case .success(let endpoint): configuration.otlpEndpoint = endpoint
        case .failure(let invalid):
            Terminal.error("reshape: --otlp-endpoint: \(invalid)")
            throw ExitCode(2)
        }
        if let name = environment["OTEL_SERVICE_NAME"], !name.isEmpty { configuration.serviceName = name }
        let ratioText = environment["RESHAPE_TRACE_SAMPLE_RATIO"]
        guard let ratio = traceSampleRatio ?? (ratioText.map { Double($0) } ?? 1.0), (0...1).contains(ratio) else {
            Terminal.error(
                "reshape: --trace-sample-ratio takes a number from 0 to 1 (got '\(traceSampleRatio.map { "\($0)" } ?? ratioText ?? "")')"
            )
            throw ExitCode(2)
        }
        configuration.traceSampleRatio = ratio
        /// A flag or its variable as a whole number of `unit` from `minimum` up; nil when neither is given.
        func wholeNumber(_ flag: Int?, _ variable: String, _ name: String, _ unit: String, minimum: Int) throws -> Int?
        {
            guard let text = flag.map(String.init) ?? environment[variable] else { return nil }
            guard let value = Int(text), value >= minimum else {
                Terminal.error("reshape: \(name) takes a whole number of \(unit), \(minimum) or more (got '\(text)')")
                throw ExitCode(2)
            }
            return value
        }
        if let bytes = try wholeNumber(
            compressMinBytes, "RESHAPE_COMPRESS_MIN_BYTES", "--compress-min-bytes", "bytes", minimum: 0)
        {
            configuration.compressMinBytes = bytes
        }
        if let seconds = try wholeNumber(
            liveStallTimeout, "RESHAPE_LIVE_STALL_TIMEOUT", "--live-stall-timeout", "seconds", minimum: 1)
        {
            configuration.liveStallSeconds = seconds
        }
        if let text = maxLoopLag ?? environment["RESHAPE_MAX_LOOP_LAG"] {
            guard let milliseconds = Quantities.milliseconds(text) else {
                Terminal.error("reshape: --max-loop-lag takes a duration like 250ms or 1s (got '\(text)')")
                throw ExitCode(2)
            }
            configuration.maxLoopLagMilliseconds = milliseconds
        }
        if let keys = try wholeNumber(limitKeys, "RESHAPE_LIMIT_KEYS", "--limit-keys", "keys", minimum: 1) {
            configuration.limitKeys = keys
        }
        if let text = trustedProxies ?? environment["RESHAPE_TRUSTED_PROXIES"], !text.isEmpty {
            for entry in text.split(separator: ",").map({ String($0.filter { $0 != " " }) }) {
                guard let range = AddressRange(entry) else {
                    Terminal.error(
                        "reshape: --trusted-proxies takes addresses or networks like 10.0.0.0/8,fd00::/8 (got '\(entry)')"
                    )
                    throw ExitCode(2)
                }
                configuration.trustedProxies.append(range)
            }
        }
        if let url = limitsRedis ?? environment["RESHAPE_LIMITS_REDIS"], !url.isEmpty {
            // `none` (or `off`): each process limits alone, even with --cache-redis.
            if url == "none" || url == "off" {
                configuration.limitsRedis = nil
            } else {
                switch RedisAddress.resolve(url) {
                case .success(let address): configuration.limitsRedis = address
                case .failure(let error):
                    Terminal.error("reshape: --limits-redis '\(RedisAddress.redacted(url))': \(error)")
                    throw ExitCode(2)
                }
            }
        } else {
            configuration.limitsRedis = redis
        }
        configuration.limitsRedisTimeoutMilliseconds =
            try wholeNumber(
                limitsRedisTimeout, "RESHAPE_LIMITS_REDIS_TIMEOUT", "--limits-redis-timeout", "milliseconds", minimum: 1
            )
            ?? 20
        if let text = maxInflightBytes ?? environment["RESHAPE_MAX_INFLIGHT_BYTES"] {
            guard let bytes = text == "0" ? 0 : Quantities.bytes(text) else {
                Terminal.error(
                    "reshape: --max-inflight-bytes takes a size like 256MiB or 1GiB, or 0 for no budget (got '\(text)')"
                )
                throw ExitCode(2)
            }
            configuration.maxInflightBytes = bytes
        } else {
            configuration.maxInflightBytes = MemoryLimit.defaultInflightBudget()
        }
        let status = Server(configuration: configuration, environment: environment).run()
        if status != 0 { throw ExitCode(status) }
    }
}
