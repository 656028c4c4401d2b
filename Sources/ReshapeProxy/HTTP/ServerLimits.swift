/// Limits and timeouts of the client side, with the defaults a public-facing proxy needs.
public struct ServerLimits: Sendable {
    /// Request line and headers together (431 past it).
    public var maxHeaderBytes = 16 * 1024
    public var maxHeaderCount = 100
    /// The request target (414 past it).
    public var maxURLBytes = 8 * 1024
    /// A request body (413 past it).
    public var maxBodyBytes = 1024 * 1024
    /// A request head must arrive within this (408, then close): slow-loris clients are cut off.
    public var headerTimeoutMilliseconds = 10_000
    /// A body must arrive within this from the end of its head (408, then close): a client
    /// cannot hold a connection and a buffer by trickling a body either.
    public var bodyTimeoutMilliseconds = 30_000
    /// An idle keep-alive connection is closed after this.
    public var idleTimeoutMilliseconds = 60_000
    /// Open client connections per worker; past it a new connection gets 503 and is closed.
    public var maxConnections = 10_000
    /// Requests read ahead on one connection before reading pauses.
    public var maxPipelinedRequests = 16

    public init() {}
}
