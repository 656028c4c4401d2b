import ReshapeProxy

/// Everything `reshape serve` was told.
public struct ServerConfiguration: Sendable {
    public var rulesPath: String
    public var listenHost: String
    public var listenPort: Int
    public var workers: Int
    public var limits: ServerLimits
    /// How long in-flight requests may take to finish after SIGTERM.
    public var drainTimeoutMilliseconds: Int
    public var accessLog: Bool

    public init(rulesPath: String, listenHost: String = "127.0.0.1", listenPort: Int = 8080, workers: Int = 1,
                limits: ServerLimits = ServerLimits(), drainTimeoutMilliseconds: Int = 10_000, accessLog: Bool = true) {
        self.rulesPath = rulesPath
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.workers = workers
        self.limits = limits
        self.drainTimeoutMilliseconds = drainTimeoutMilliseconds
        self.accessLog = accessLog
    }
}
