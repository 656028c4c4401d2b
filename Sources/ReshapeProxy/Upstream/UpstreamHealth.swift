import ReshapeRules

/// Every upstream's circuit and retry budget on one worker, and the decisions for one fetch's
/// attempts: start, retry after a wait, hand the last result over, or refuse at once. The
/// server's upstream client executes the actions; times are monotonic seconds passed in.
public struct UpstreamHealth: Sendable {
    /// One fetch's attempts so far.
    public struct Fetch: Sendable {
        public let upstream: String
        let retry: RetryRule
        let circuit: CircuitRule?
        let retryable: Bool
        /// The retries of a fetch fit in the time its first try was given: they never extend
        /// the request (a route's `timeout` already bounds that first try).
        let deadline: Double
        public internal(set) var retries = 0
        var attemptStarted = 0.0
        var attemptInFlight = false
        var probing = false

        public init(_ request: UpstreamRequest, now: Double) {
            upstream = request.upstreamName
            retry = request.retry
            circuit = request.circuit
            retryable = request.retryable
            deadline = now + Double(request.timeoutMilliseconds) / 1000
        }

        func millisecondsLeft(_ now: Double) -> Int { Int(((deadline - now) * 1000).rounded(.down)) }
    }

    /// What to do next with a fetch.
    public enum Action: Sendable, Equatable {
        /// Contact the upstream now, allowing the attempt `timeoutMilliseconds`.
        case attempt(timeoutMilliseconds: Int)
        /// Wait `delayMilliseconds`, then call `retryDue`.
        case retryLater(RetryReason, delayMilliseconds: Int)
        /// The last attempt's result is the fetch's result.
        case finish
        /// The circuit is open: fail without contacting the upstream.
        case reject(retryAfterSeconds: Int)
    }

    private var circuits: [String: CircuitBreaker] = [:]
    private var budgets: [String: RetryBudget] = [:]

    public init() {}

    /// 0 closed, 1 open, 2 half-open, for each upstream that has a circuit.
    public var circuitStates: [String: Int] { circuits.mapValues(\.gaugeValue) }

    public func circuitState(_ upstream: String) -> CircuitBreaker.State? { circuits[upstream]?.state }

    /// `upstream`'s circuit as the metrics gauge has it; nil when it has none.
    public func circuitGauge(_ upstream: String) -> Int? { circuits[upstream]?.gaugeValue }

    /// The fetch's first try.
    public mutating func begin(_ fetch: inout Fetch, now: Double) -> Action {
        budgets[fetch.upstream, default: RetryBudget()].requested(now: now)
        return admit(&fetch, now: now, timeout: fetch.millisecondsLeft(now))
    }

    /// The attempt in flight ended with `end`.
    public mutating func attemptEnded(_ fetch: inout Fetch, _ end: AttemptEnd, now: Double) -> Action {
        fetch.attemptInFlight = false
        settleCircuit(&fetch, failed: end.isTransportFailure, now: now)
        let decision = RetryPolicy.decide(
            rule: fetch.retry, retryable: fetch.retryable, retriesDone: fetch.retries, end: end,
            attemptMilliseconds: Int(((now - fetch.attemptStarted) * 1000).rounded(.up)),
            timeLeftMilliseconds: fetch.millisecondsLeft(now))
        guard case .retry(let reason, let delay, _) = decision,
            budgets[fetch.upstream, default: RetryBudget()].allowRetry(percent: fetch.retry.budgetPercent, now: now)
        else { return .finish }
        fetch.retries += 1
        return .retryLater(reason, delayMilliseconds: delay)
    }

    /// The wait before a retry is over: try again, or, if the circuit opened meanwhile or the
    /// time ran short, give the last result over.
    public mutating func retryDue(_ fetch: inout Fetch, now: Double) -> Action {
        let left = fetch.millisecondsLeft(now)
        guard left >= RetryPolicy.minimumTimeLeftMilliseconds else { return .finish }
        if case .reject = admit(&fetch, now: now, timeout: left) { return .finish }
        return .attempt(timeoutMilliseconds: left)
    }

    /// The fetch was cancelled; `timedOut` when the route's timeout cut it off, which the
    /// circuit counts like the upstream's own timeout.
    public mutating func cancelled(_ fetch: inout Fetch, timedOut: Bool, now: Double) {
        guard fetch.attemptInFlight else { return }
        fetch.attemptInFlight = false
        if timedOut { return settleCircuit(&fetch, failed: true, now: now) }
        guard fetch.probing else { return }
        fetch.probing = false
        circuits[fetch.upstream]?.probeCancelled()
    }

    private mutating func admit(_ fetch: inout Fetch, now: Double, timeout: Int) -> Action {
        if fetch.circuit != nil {
            switch circuits[fetch.upstream, default: CircuitBreaker()].admit(now: now) {
            case .proceed: break
            case .probe: fetch.probing = true
            case .reject(let seconds): return .reject(retryAfterSeconds: seconds)
            }
        }
        fetch.attemptStarted = now
        fetch.attemptInFlight = true
        return .attempt(timeoutMilliseconds: timeout)
    }

    private mutating func settleCircuit(_ fetch: inout Fetch, failed: Bool, now: Double) {
        // A probe reports even if a reload removed the circuit meanwhile, so it cannot stay half-open.
        guard fetch.circuit != nil || fetch.probing, circuits[fetch.upstream] != nil else { return }
        let rule = fetch.circuit ?? CircuitRule(failures: 1, openForMilliseconds: 0)
        _ = circuits[fetch.upstream]?.finished(failed: failed, wasProbe: fetch.probing, rule: rule, now: now)
        fetch.probing = false
    }
}
