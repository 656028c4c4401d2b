/// The generic cell rate algorithm: one number per key, the theoretical arrival time (`tat`) of
/// the next request at the policy's steady rate. A request at `now` is admitted when that time,
/// one emission interval on, is at most `burst` intervals ahead of `now`; then it becomes the
/// key's new `tat`. Pure: the time comes in (monotonic seconds), the stored `tat` goes out.
package struct GCRA: Sendable, Equatable {
    /// Seconds between two requests at the steady rate (`10/s`: 0.1).
    package let emissionInterval: Double
    /// Requests allowed at once.
    package let burst: Int

    package init(count: Int, intervalSeconds: Int, burst: Int) {
        emissionInterval = Double(intervalSeconds) / Double(max(count, 1))
        self.burst = max(burst, 1)
    }

    /// What one request comes to.
    package enum Verdict: Sendable, Equatable {
        /// Admitted: store `tat`; `remaining` more would be admitted now; `resetSeconds` until
        /// the key is back to a full burst.
        case admitted(tat: Double, remaining: Int, resetSeconds: Double)
        /// Refused: nothing changes; one would be admitted in `retryAfterSeconds`.
        case limited(retryAfterSeconds: Double, resetSeconds: Double)
    }

    /// A request at `now` of a key whose stored `tat` is `tat` (nil: never seen, or forgotten,
    /// which is the same: a full burst).
    package func decide(tat stored: Double?, now: Double) -> Verdict {
        let tat = max(stored ?? now, now)
        let tolerance = emissionInterval * Double(burst)
        let next = tat + emissionInterval
        let allowAt = next - tolerance
        // A thousandth of an interval of slack: times summed in floating point must not refuse
        // a request that arrives exactly on its turn.
        if now + emissionInterval * 1e-6 < allowAt {
            return .limited(retryAfterSeconds: allowAt - now, resetSeconds: tat - now)
        }
        let remaining = Int(((now - allowAt) / emissionInterval + 1e-6).rounded(.down))
        return .admitted(tat: next, remaining: min(max(remaining, 0), burst - 1), resetSeconds: next - now)
    }

    /// Gives back one admitted request (another policy of the same request refused it).
    package func refund(tat: Double) -> Double {
        tat - emissionInterval
    }
}
