import ReshapeRules

/// How one attempt at a fetch ended, as far as retrying and the circuit care.
package enum AttemptEnd: Sendable, Equatable {
    /// The upstream answered (any status); `retryAfter` is its `Retry-After`, if any.
    case answered(status: Int, retryAfter: String?)
    /// The upstream answered a redirect status (`RedirectPolicy.isRedirect`), pointing at
    /// `location` (nil: no Location, or one that is not a URL).
    case redirected(status: Int, location: RedirectLocation?)
    /// The connection was reset or closed before any byte of the answer arrived.
    case reset
    /// No connection could be made (refused, unreachable).
    case connectFailure
    case timeout
    /// Any other failure of the connection (DNS, TLS, cut off mid-answer).
    case transportFailure
    /// Not the connection's fault (an oversized body, a local error).
    case otherFailure

    /// Whether it counts against the circuit: the upstream could not be reached or did not answer.
    package var isTransportFailure: Bool {
        switch self {
        case .reset, .connectFailure, .timeout, .transportFailure: true
        case .answered, .redirected, .otherFailure: false
        }
    }
}

/// Why a fetch was tried again: the `reason` label of `reshape_upstream_retries_total`.
package enum RetryReason: Sendable, Equatable {
    case reset
    case connectFailure
    case status(Int)

    package var label: String {
        switch self {
        case .reset: "reset"
        case .connectFailure: "connect-failure"
        case .status(let status): String(status)
        }
    }
}

/// Whether one failed attempt is tried again, and when. Pure: the budget and the circuit are
/// asked separately (`UpstreamHealth`).
package enum RetryPolicy {
    /// A retry needs at least this much of the fetch's time left, however fast the failure was.
    package static let minimumTimeLeftMilliseconds = 50

    package enum Decision: Sendable, Equatable {
        /// Try again after `delayMilliseconds`, with at most `timeoutMilliseconds` for the try.
        case retry(RetryReason, delayMilliseconds: Int, timeoutMilliseconds: Int)
        case giveUp
    }

    /// `retriesDone` retries were made; the last attempt ended with `end` after `attemptMilliseconds`,
    /// and `timeLeftMilliseconds` remain of the time the fetch was given.
    package static func decide(
        rule: RetryRule, retryable: Bool, retriesDone: Int, end: AttemptEnd, attemptMilliseconds: Int,
        timeLeftMilliseconds: Int
    ) -> Decision {
        guard retryable, retriesDone < rule.attempts else { return .giveUp }
        let reason: RetryReason
        var delay = 0
        switch end {
        case .reset where rule.onReset: reason = .reset
        case .connectFailure where rule.onConnectFailure: reason = .connectFailure
        case .answered(let status, let retryAfter) where rule.statuses.contains(status):
            reason = .status(status)
            if let retryAfter {
                // An HTTP-date is not read: waiting an unknown time could outlast the client.
                guard let seconds = retryAfterSeconds(retryAfter) else { return .giveUp }
                delay = seconds * 1000
            }
        default: return .giveUp
        }
        // Another try should get at least as long as the failed one took: if it cannot, it
        // would most likely be cut off by the route's timeout anyway.
        let left = timeLeftMilliseconds - delay
        guard left >= max(attemptMilliseconds, minimumTimeLeftMilliseconds) else { return .giveUp }
        return .retry(reason, delayMilliseconds: delay, timeoutMilliseconds: left)
    }

    /// `Retry-After`'s delay-seconds form; nil for anything else.
    static func retryAfterSeconds(_ value: String) -> Int? {
        let text = value.trimmingPrefix(while: { $0 == " " })
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
