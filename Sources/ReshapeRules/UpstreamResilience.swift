/// When a failed upstream fetch is tried again (`retry:`), in the rules' own terms; the
/// decisions themselves are made per fetch by `RetryPolicy` (ReshapeProxy).
package struct RetryRule: Sendable, Equatable {
    /// Retries after the first try: at most `attempts + 1` tries in all.
    package var attempts: Int
    /// A connection reset or closed before any byte of the answer arrived.
    package var onReset: Bool
    /// A connection that could not be made (refused, unreachable).
    package var onConnectFailure: Bool
    /// Statuses an answering upstream may give that are worth another try.
    package var statuses: Set<Int>
    /// Retries allowed as a share of the upstream's recent requests, in percent.
    package var budgetPercent: Int

    package init(attempts: Int, onReset: Bool, onConnectFailure: Bool, statuses: Set<Int>, budgetPercent: Int) {
        self.attempts = attempts
        self.onReset = onReset
        self.onConnectFailure = onConnectFailure
        self.statuses = statuses
        self.budgetPercent = budgetPercent
    }

    /// Without `retry:`: one more try when the connection failed or was reset, the failures
    /// where the upstream cannot have acted on the request.
    package static let standard = RetryRule(
        attempts: 1, onReset: true, onConnectFailure: true, statuses: [], budgetPercent: 20)
}

/// When an upstream that keeps failing is no longer contacted for a while (`circuit:`).
package struct CircuitRule: Sendable, Equatable {
    /// Consecutive transport failures or timeouts that open the circuit.
    package var failures: Int
    /// How long it stays open before one probe is let through.
    package var openForMilliseconds: Int

    package init(failures: Int, openForMilliseconds: Int) {
        self.failures = failures
        self.openForMilliseconds = openForMilliseconds
    }
}

/// The kept-alive connections to an upstream that wait for the next request, per worker.
package struct IdlePoolRule: Sendable, Equatable {
    /// Idle connections kept; the oldest beyond this are closed.
    package var maxIdle: Int
    /// An idle connection is closed after this long unused.
    package var idleTimeoutMilliseconds: Int

    package init(maxIdle: Int, idleTimeoutMilliseconds: Int) {
        self.maxIdle = maxIdle
        self.idleTimeoutMilliseconds = idleTimeoutMilliseconds
    }

    /// As nginx's `keepalive` suggests: enough for a worker's bursts, never thousands.
    package static let standard = IdlePoolRule(maxIdle: 32, idleTimeoutMilliseconds: 60_000)
}
