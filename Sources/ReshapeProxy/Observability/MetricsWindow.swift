/// What the workers' metrics say at one moment, merged: the parts the status page reads.
package struct MetricsSnapshot: Sendable {
    /// Requests answered, by route, then by status.
    var requests: [String: [Int: Int]] = [:]
    var latency: [String: Metrics.Histogram] = [:]
    /// Elements dropped by validation, by route.
    var dropped: [String: Int] = [:]

    /// The workers' metrics merged now.
    package static func of(_ workers: [Metrics]) -> MetricsSnapshot {
        var merged = MetricsSnapshot()
        for worker in workers {
            let state = worker.state.withLock { $0 }
            for (key, count) in state.requests {
                merged.requests[key.route, default: [:]][key.status, default: 0] += count
            }
            for (route, histogram) in state.latency { merged.latency[route, default: .init()].merge(histogram) }
            for (key, count) in state.dropped {
                let route = String(key.split(separator: "|", maxSplits: 1).first ?? "")
                merged.dropped[route, default: 0] += count
            }
        }
        return merged
    }
}

/// Rates and latency quantiles over a recent window, from snapshots taken on a timer: the
/// difference between now and the oldest sample inside the window. Counters since start
/// would hide what is happening now under what happened at start-up.
package struct MetricsWindow: Sendable {
    /// One route's figures over the window.
    package struct RouteFigures: Sendable, Equatable {
        package var requestsPerSecond: Double
        /// Answers with a 5xx status, per second.
        package var errorsPerSecond: Double
        package var p50Seconds: Double?
        package var p99Seconds: Double?
        package var dropped: Int
    }

    package let seconds: Double
    private var samples: [(time: Double, snapshot: MetricsSnapshot)] = []

    package init(seconds: Double) { self.seconds = seconds }

    /// Keeps `snapshot`, taken at monotonic `time`, and forgets samples the window no longer needs.
    package mutating func record(_ snapshot: MetricsSnapshot, at time: Double) {
        samples.append((time, snapshot))
        // The newest sample at least `seconds` old is the window's start; older ones go.
        while samples.count > 1, time - samples[1].time >= seconds { samples.removeFirst() }
    }

    /// The figures between the window's start and `current` (taken at `time`), by route. The
    /// start is the newest sample at least `seconds` old, or the oldest there is while none is.
    package func figures(_ current: MetricsSnapshot, at time: Double) -> [String: RouteFigures] {
        let start = samples.last { time - $0.time >= seconds } ?? samples.first
        let base = start?.snapshot ?? MetricsSnapshot()
        let elapsed = max(time - (start?.time ?? time), 1)
        var result: [String: RouteFigures] = [:]
        for (route, statuses) in current.requests {
            let before = base.requests[route] ?? [:]
            var total = 0
            var errors = 0
            for (status, count) in statuses {
                let delta = count - (before[status] ?? 0)
                total += delta
                if status >= 500 { errors += delta }
            }
            var latency = current.latency[route] ?? .init()
            latency.subtract(base.latency[route] ?? .init())
            result[route] = RouteFigures(
                requestsPerSecond: Double(total) / elapsed, errorsPerSecond: Double(errors) / elapsed,
                p50Seconds: latency.quantile(0.5), p99Seconds: latency.quantile(0.99),
                dropped: (current.dropped[route] ?? 0) - (base.dropped[route] ?? 0))
        }
        return result
    }
}

extension Metrics.Histogram {
    mutating func subtract(_ earlier: Metrics.Histogram) {
        for index in counts.indices { counts[index] -= earlier.counts[index] }
        sum -= earlier.sum
        total -= earlier.total
    }

    /// The `q` quantile as Prometheus's `histogram_quantile` estimates it: linear within the
    /// bucket it falls in; past the last finite bound, that bound. Nil with no observations.
    func quantile(_ q: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = q * Double(total)
        var lowerBound = 0.0
        var below = 0
        for (index, bound) in Metrics.latencyBuckets.enumerated() {
            let cumulative = counts[index]
            if Double(cumulative) >= rank {
                let inBucket = cumulative - below
                guard inBucket > 0 else { return bound }
                return lowerBound + (bound - lowerBound) * (rank - Double(below)) / Double(inBucket)
            }
            lowerBound = bound
            below = cumulative
        }
        return Metrics.latencyBuckets.last
    }
}
