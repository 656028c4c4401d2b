import ReshapeRules
import ReshapeStateMachines

/// Every upstream's circuit and retry budget on one worker, and the decisions for one fetch's
/// attempts: start, retry after a wait, follow a redirect, hand the last result over, or refuse
/// at once. The server's upstream client executes the actions; times are monotonic seconds
/// passed in.
package struct UpstreamHealth: Sendable {
    /// One fetch's attempts so far.
    package struct Fetch: Sendable {
        package let upstream: String
        let retry: RetryRule
        let circuit: CircuitRule?
        let retryable: Bool
        let method: String
        let redirects: RedirectPolicy?
        /// The retries of a fetch fit in the time its first try was given: they never extend
        /// the request (a route's `timeout` already bounds that first try). So do its redirects.
        let deadline: Double
        package internal(set) var retries = 0
        /// Redirects followed so far.
        package internal(set) var hops = 0
        /// Where the next attempt goes: the rule's URL until a redirect is followed.
        package internal(set) var url: String
        var attempt = Attempt.idle

        /// Whether an attempt is out, and whether it is its circuit's probe.
        enum Attempt: Sendable, Equatable {
            /// Before the first attempt, between attempts, or after the last.
            case idle
            case running(started: Double, probe: Bool)
        }

        package init(_ request: UpstreamRequest, now: Double) {
            upstream = request.upstreamName
            retry = request.retry
            circuit = request.circuit
            retryable = request.retryable
            method = request.method
            redirects = request.redirects
            url = request.url
            deadline = now + Double(request.timeoutMilliseconds) / 1000
        }

        func millisecondsLeft(_ now: Double) -> Int { Int(((deadline - now) * 1000).rounded(.down)) }
    }

    /// What to do next with a fetch.
    package enum Action: Sendable, Equatable {
        /// Contact the upstream (at the fetch's `url`) now, allowing the attempt `timeoutMilliseconds`.
        case attempt(timeoutMilliseconds: Int)
        /// Wait `delayMilliseconds`, then call `retryDue`.
        case retryLater(RetryReason, delayMilliseconds: Int)
        /// Follow the redirect just answered: contact the fetch's new `url`, allowing
        /// `timeoutMilliseconds`.
        case follow(timeoutMilliseconds: Int)
        /// The last attempt's result is the fetch's result.
        case finish
        /// The circuit is open: fail without contacting the upstream.
        case reject(retryAfterSeconds: Int)
        /// The redirect just answered is not followed: fail with `upstream-redirect-refused`.
        case refuseRedirect(String)
        /// No time is left to follow the redirect just answered: fail as a timeout.
        case expire(String)
    }

    private var circuits: [String: CircuitBreaker] = [:]
    private var budgets: [String: RetryBudget] = [:]

    package init() {}

    /// 0 closed, 1 open, 2 half-open, for each upstream that has a circuit.
    package var circuitStates: [String: Int] { circuits.mapValues(\.gaugeValue) }

    package func circuitState(_ upstream: String) -> CircuitBreaker.State? { circuits[upstream]?.state }

    /// `upstream`'s circuit as the metrics gauge has it; nil when it has none.
    package func circuitGauge(_ upstream: String) -> Int? { circuits[upstream]?.gaugeValue }

    /// The fetch's first try.
    package mutating func begin(_ fetch: inout Fetch, now: Double) -> Action {
        budgets[fetch.upstream, default: RetryBudget()].requested(now: now)
        return admit(&fetch, now: now, timeout: fetch.millisecondsLeft(now))
    }

    /// The attempt in flight ended with `end`.
    package mutating func attemptEnded(_ fetch: inout Fetch, _ end: AttemptEnd, now: Double) -> Action {
        guard case .running(let started, let probe) = fetch.attempt else { impossible("attemptEnded", in: "idle") }
        fetch.attempt = .idle
        settleCircuit(&fetch, failed: end.isTransportFailure, probe: probe, now: now)
        if case .redirected(let status, let location) = end, let policy = fetch.redirects {
            return redirected(
                &fetch, policy.decide(status: status, location: location, method: fetch.method, hopsDone: fetch.hops),
                now: now)
        }
        let decision = RetryPolicy.decide(
            rule: fetch.retry, retryable: fetch.retryable, retriesDone: fetch.retries, end: end,
            attemptMilliseconds: Int(((now - started) * 1000).rounded(.up)),
            timeLeftMilliseconds: fetch.millisecondsLeft(now))
        guard case .retry(let reason, let delay, _) = decision,
            budgets[fetch.upstream, default: RetryBudget()].allowRetry(percent: fetch.retry.budgetPercent, now: now)
        else { return .finish }
        fetch.retries += 1
        return .retryLater(reason, delayMilliseconds: delay)
    }

    /// What a redirect the policy decided on comes to: the next hop within the fetch's time,
    /// through the circuit like any attempt.
    private mutating func redirected(_ fetch: inout Fetch, _ decision: RedirectPolicy.Decision, now: Double) -> Action {
        switch decision {
        case .refuse(let reason):
            return .refuseRedirect(reason)
        case .follow(let url):
            let left = fetch.millisecondsLeft(now)
            guard left >= RetryPolicy.minimumTimeLeftMilliseconds else {
                return .expire("the fetch's time ran out before the upstream's redirect could be followed")
            }
            if case .reject(let seconds) = admit(&fetch, now: now, timeout: left) {
                return .reject(retryAfterSeconds: seconds)
            }
            fetch.hops += 1
            fetch.url = url
            return .follow(timeoutMilliseconds: left)
        }
    }

    /// The wait before a retry is over: try again, or, if the circuit opened meanwhile or the
    /// time ran short, give the last result over.
    package mutating func retryDue(_ fetch: inout Fetch, now: Double) -> Action {
        let left = fetch.millisecondsLeft(now)
        guard left >= RetryPolicy.minimumTimeLeftMilliseconds else { return .finish }
        if case .reject = admit(&fetch, now: now, timeout: left) { return .finish }
        return .attempt(timeoutMilliseconds: left)
    }

    /// The fetch was cancelled; `timedOut` when the route's timeout cut it off, which the
    /// circuit counts like the upstream's own timeout.
    package mutating func cancelled(_ fetch: inout Fetch, timedOut: Bool, now: Double) {
        guard case .running(_, let probe) = fetch.attempt else { return }
        fetch.attempt = .idle
        if timedOut { return settleCircuit(&fetch, failed: true, probe: probe, now: now) }
        guard probe else { return }
        circuits[fetch.upstream]?.probeCancelled()
    }

    private mutating func admit(_ fetch: inout Fetch, now: Double, timeout: Int) -> Action {
        var probe = false
        if fetch.circuit != nil {
            switch circuits[fetch.upstream, default: CircuitBreaker()].admit(now: now) {
            case .proceed: break
            case .probe: probe = true
            case .reject(let seconds): return .reject(retryAfterSeconds: seconds)
            }
        }
        fetch.attempt = .running(started: now, probe: probe)
        return .attempt(timeoutMilliseconds: timeout)
    }

    private mutating func settleCircuit(_ fetch: inout Fetch, failed: Bool, probe: Bool, now: Double) {
        // A probe reports even if a reload removed the circuit meanwhile, so it cannot stay half-open.
        guard fetch.circuit != nil || probe, circuits[fetch.upstream] != nil else { return }
        let rule = fetch.circuit ?? CircuitRule(failures: 1, openForMilliseconds: 0)
        _ = circuits[fetch.upstream]?.finished(failed: failed, wasProbe: probe, rule: rule, now: now)
    }
}
