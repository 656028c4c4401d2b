extension Metrics {
    /// A request of `route` was answered 429 by `policy`.
    package func recordRateLimited(route: String, policy: String) {
        state.withLock { $0.resilience.rateLimited["\(route)|\(policy)", default: 0] += 1 }
    }

    /// A shared (Redis) rate-limit decision was not had in time: the process's own decided.
    package func recordLimitFallback(_ count: Int = 1) {
        state.withLock { $0.resilience.limitFallbacks += count }
    }

    static func limitExposition(_ resilience: Resilience, label: (String) -> String) -> String {
        // Both labels are names from the rules.
        var out =
            "# HELP reshape_rate_limited_total Requests answered 429 rate-limited, by route and policy.\n# TYPE reshape_rate_limited_total counter\n"
        for (key, count) in resilience.rateLimited.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            out +=
                "reshape_rate_limited_total{route=\"\(label(parts[0]))\",policy=\"\(label(parts.count > 1 ? parts[1] : ""))\"} \(count)\n"
        }
        out +=
            "# HELP reshape_limit_fallbacks_total Rate-limit decisions the shared store (Redis) did not answer in time, made by the process's own table.\n# TYPE reshape_limit_fallbacks_total counter\nreshape_limit_fallbacks_total \(resilience.limitFallbacks)\n"
        return out
    }
}
