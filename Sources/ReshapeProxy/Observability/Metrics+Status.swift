import ReshapeRules

extension Metrics {
    /// Per-route figures for the status page that the Prometheus text does not carry: the last
    /// few dropped elements (what to look at when drops rise) and how answers used the cache.
    struct StatusFigures {
        /// Newest last, at most `recentDropsKept` per route.
        var recentDrops: [String: [DroppedElement]] = [:]
        /// Answers of routes with `cache:`, by route, then by `Reshape-Cache` status.
        var cacheStatuses: [String: [String: Int]] = [:]
    }

    static let recentDropsKept = 5

    /// Elements validation dropped from one answer of `route`: counted, and the last few kept.
    package func recordDropped(route: String, elements: [DroppedElement]) {
        guard !elements.isEmpty else { return }
        state.withLock { state in
            for element in elements { state.dropped["\(route)|\(element.type)", default: 0] += 1 }
            var kept = state.status.recentDrops.removeValue(forKey: route) ?? []
            kept.append(contentsOf: elements.suffix(Self.recentDropsKept))
            if kept.count > Self.recentDropsKept { kept.removeFirst(kept.count - Self.recentDropsKept) }
            state.status.recentDrops[route] = kept
        }
    }

    /// An answer of `route` went out with `Reshape-Cache: status`.
    package func recordCacheStatus(route: String, status: String) {
        state.withLock { $0.status.cacheStatuses[route, default: [:]][status, default: 0] += 1 }
    }

    /// The workers' last dropped elements per route, newest first.
    package static func recentDrops(_ workers: [Metrics]) -> [String: [DroppedElement]] {
        var merged: [String: [DroppedElement]] = [:]
        for worker in workers {
            for (route, drops) in worker.state.withLock({ $0.status.recentDrops }) {
                merged[route, default: []] += drops
            }
        }
        return merged.mapValues { Array($0.suffix(recentDropsKept).reversed()) }
    }

    /// The share of each cached route's answers that did not need a fetch of their own (a hit,
    /// a stale copy, or another request's fetch), since start.
    package static func cacheHitRatios(_ workers: [Metrics]) -> [String: Double] {
        var merged: [String: [String: Int]] = [:]
        for worker in workers {
            for (route, statuses) in worker.state.withLock({ $0.status.cacheStatuses }) {
                merged[route, default: [:]].merge(statuses, uniquingKeysWith: +)
            }
        }
        return merged.compactMapValues { statuses in
            let total = statuses.values.reduce(0, +)
            guard total > 0 else { return nil }
            let served = total - (statuses[CacheStatus.miss.rawValue] ?? 0)
            return Double(served) / Double(total)
        }
    }

    /// Retries by upstream (every reason), since start.
    package static func retries(_ workers: [Metrics]) -> [String: Int] {
        var merged: [String: Int] = [:]
        for worker in workers {
            for (key, count) in worker.state.withLock({ $0.resilience.retries }) {
                merged[String(key.split(separator: "|", maxSplits: 1).first ?? ""), default: 0] += count
            }
        }
        return merged
    }
}
