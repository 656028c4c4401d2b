/// Limits and timeouts of the client side, with the defaults a public-facing proxy needs.
package struct ServerLimits: Sendable {
    /// Request line and headers together (431 past it).
    package var maxHeaderBytes = 16 * 1024
    package var maxHeaderCount = 100
    /// The request target (414 past it).
    package var maxURLBytes = 8 * 1024
    /// A request body (413 past it).
    package var maxBodyBytes = 1024 * 1024
    /// A request head must arrive within this (408, then close): slow-loris clients are cut off.
    package var headerTimeoutMilliseconds = 10_000
    /// A body must arrive within this from the end of its head (408, then close): a client
    /// cannot hold a connection and a buffer by trickling a body either.
    package var bodyTimeoutMilliseconds = 30_000
    /// An idle keep-alive connection is closed after this.
    package var idleTimeoutMilliseconds = 60_000
    /// Open client connections per worker; past it a new connection gets 503 and is closed.
    package var maxConnections = 10_000
    /// Requests read ahead on one connection before reading pauses.
    package var maxPipelinedRequests = 16

    package init() {}
}
