import ReshapeJSON

/// An upstream's `retry`, `circuit`, `max-idle`, `idle-timeout` and `redirects`, checked like
/// its other keys.
struct UpstreamResilience {
    var retry = RetryRule.standard
    var circuit: CircuitRule?
    var idlePool = IdlePoolRule.standard
    var redirects: RedirectRule?
}

extension RuleSetBuilder {
    static let resilienceKeys: Set<String> = ["retry", "circuit", "max-idle", "idle-timeout", "redirects"]
    private static let retryKeys: Set<String> = ["attempts", "on", "budget"]
    private static let circuitKeys: Set<String> = ["failures", "open-for"]

    /// The upstream's resilience keys; nil when any of them is faulty (each problem reported).
    mutating func compileResilience(
        _ object: JSONObject, _ document: SourceDocument, _ pointer: String
    ) -> UpstreamResilience? {
        let before = problems.count
        var result = UpstreamResilience()
        func whole(_ value: JSON?, _ at: String, _ name: String, _ range: ClosedRange<Int>) -> Int? {
            guard let value else { return nil }
            if case .number(let number) = value, let count = number.intValue, range.contains(count) { return count }
            report(
                document, at, "`\(name)` must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        func duration(_ value: JSON?, _ at: String, _ name: String) -> Int? {
            guard let value else { return nil }
            if case .string(let text) = value, let ms = Quantities.milliseconds(text) { return ms }
            report(document, at, "`\(name)` must be a duration like 250ms, 5s or 1m")
            return nil
        }
        if let value = object["retry"] {
            result.retry = compileRetry(value, document, pointer + "/retry") ?? result.retry
        }
        if let value = object["circuit"] {
            let at = pointer + "/circuit"
            if case .object(let circuit) = value {
                _ = reportUnknownKeys(in: circuit, allowed: Self.circuitKeys, what: "circuit key", document, at)
                let failures = whole(circuit["failures"], at + "/failures", "failures", 1...1000) ?? 5
                let openFor = duration(circuit["open-for"], at + "/open-for", "open-for") ?? 10_000
                result.circuit = CircuitRule(failures: failures, openForMilliseconds: openFor)
            } else {
                report(document, at, "`circuit` must be a mapping like { failures: 5, open-for: 10s }")
            }
        }
        let maxIdle = whole(object["max-idle"], pointer + "/max-idle", "max-idle", 0...1024)
        let idleTimeout = duration(object["idle-timeout"], pointer + "/idle-timeout", "idle-timeout")
        result.idlePool = IdlePoolRule(
            maxIdle: maxIdle ?? IdlePoolRule.standard.maxIdle,
            idleTimeoutMilliseconds: idleTimeout ?? IdlePoolRule.standard.idleTimeoutMilliseconds)
        if let value = object["redirects"] {
            result.redirects = compileRedirects(value, document, pointer + "/redirects")
        }
        return problems.count == before ? result : nil
    }

    /// `retry: { attempts, on, budget }`; a key left out keeps its default.
    private mutating func compileRetry(_ value: JSON, _ document: SourceDocument, _ pointer: String) -> RetryRule? {
        guard case .object(let object) = value else {
            report(document, pointer, "`retry` must be a mapping like { attempts: 2, on: [reset, 503], budget: 20% }")
            return nil
        }
        _ = reportUnknownKeys(in: object, allowed: Self.retryKeys, what: "retry key", document, pointer)
        var rule = RetryRule.standard
        if let attempts = object["attempts"] {
            if case .number(let number) = attempts, let count = number.intValue, (0...10).contains(count) {
                rule.attempts = count
            } else {
                report(document, pointer + "/attempts", "`attempts` must be a whole number from 0 to 10")
            }
        }
        if let on = object["on"] {
            if case .array(let conditions) = on {
                rule.onReset = false
                rule.onConnectFailure = false
                for (index, condition) in conditions.enumerated() {
                    switch condition {
                    case .string("reset"): rule.onReset = true
                    case .string("connect-failure"): rule.onConnectFailure = true
                    case .number(let number) where (400...599).contains(number.intValue ?? 0):
                        rule.statuses.insert(number.intValue ?? 0)
                    default:
                        report(
                            document, pointer + "/on/\(index)",
                            "a retry condition is reset, connect-failure or a status from 400 to 599")
                    }
                }
            } else {
                report(document, pointer + "/on", "`on` must be a list like [reset, connect-failure, 503]")
            }
        }
        if let budget = object["budget"] {
            if case .string(let text) = budget, text.hasSuffix("%"), let percent = Int(text.dropLast()),
                (1...100).contains(percent)
            {
                rule.budgetPercent = percent
            } else {
                report(document, pointer + "/budget", "`budget` must be a share of requests from 1% to 100%")
            }
        }
        return rule
    }
}
