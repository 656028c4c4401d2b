/// Whether a worker's loop runs late enough to shed new requests (`--max-loop-lag`): a timer
/// that should fire every `intervalSeconds` reports when it did; how late it ran is the
/// loop's lag, which the requests waiting behind a long pipeline see too. Pure: the times come
/// in (monotonic seconds).
package struct LoopLag: Sendable {
    package let maxLagSeconds: Double
    /// How often the timer is asked to fire: often enough to notice, at most every 100 ms.
    package let intervalSeconds: Double
    /// Past the bound at the last tick: new route requests are answered `503 load-shed`.
    package private(set) var shedding = false
    /// How late the last tick ran.
    package private(set) var lastLagSeconds = 0.0

    package init(maxLagSeconds: Double) {
        self.maxLagSeconds = maxLagSeconds
        intervalSeconds = min(max(maxLagSeconds / 4, 0.005), 0.1)
    }

    /// The timer due at `due` ran at `now`: true when shedding starts or stops with it.
    package mutating func ticked(due: Double, now: Double) -> Bool {
        lastLagSeconds = max(0, now - due)
        let late = lastLagSeconds > maxLagSeconds
        defer { shedding = late }
        return late != shedding
    }
}
