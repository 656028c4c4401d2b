/// Caps one upstream's retries at a share of its recent requests (Envoy's retry budget), so
/// retries cannot multiply an outage: when every request fails, at most `percent` more go out.
/// Counted per worker over a sliding window of one-second slots; times are monotonic seconds
/// passed in.
package struct RetryBudget: Sendable, Equatable {
    /// How far back requests and retries are counted.
    package static let windowSeconds = 10
    /// Retries always allowed in a window, so a lone request on a quiet upstream can still retry.
    package static let minimumRetries = 3

    private struct Slot: Sendable, Equatable {
        var second = Int.min
        var requests = 0
        var retries = 0
    }

    private var slots = [Slot](repeating: Slot(), count: RetryBudget.windowSeconds)

    package init() {}

    /// A first try went out.
    package mutating func requested(now: Double) {
        update(now) { $0.requests += 1 }
    }

    /// Whether a retry may go now; when it may, it is counted.
    package mutating func allowRetry(percent: Int, now: Double) -> Bool {
        let (requests, retries) = totals(now)
        let allowed = max(Self.minimumRetries, requests * percent / 100)
        guard retries < allowed else { return false }
        update(now) { $0.retries += 1 }
        return true
    }

    private func totals(_ now: Double) -> (requests: Int, retries: Int) {
        let second = Int(now.rounded(.down))
        var requests = 0
        var retries = 0
        for slot in slots where slot.second > second - Self.windowSeconds && slot.second <= second {
            requests += slot.requests
            retries += slot.retries
        }
        return (requests, retries)
    }

    private mutating func update(_ now: Double, _ change: (inout Slot) -> Void) {
        let second = Int(now.rounded(.down))
        let index = ((second % Self.windowSeconds) + Self.windowSeconds) % Self.windowSeconds
        if slots[index].second != second { slots[index] = Slot(second: second) }
        change(&slots[index])
    }
}
