import ReshapeJSON

/// An upstream's `max-in-flight` and the `queue` beyond it, checked like its other keys.
struct UpstreamAdmissionKeys {
    var maxInFlight: Int?
    var queue: UpstreamQueueRule?
}

extension RuleSetBuilder {
    static let admissionKeys: Set<String> = ["max-in-flight", "queue"]
    private static let queueKeys: Set<String> = ["size", "timeout"]
    private static let queueExample = "`queue` must be a mapping like { size: 1024, timeout: 1s }"
    /// Beyond these a limit guards nothing: more fetches at once than any process holds
    /// connections for, or a wait longer than any route's timeout could use.
    static let maxInFlightRange = 1...100_000
    static let queueSizeRange = 1...1_000_000
    static let queueTimeoutRange = 1...600_000

    /// `max-in-flight: N` and `queue: { size, timeout }`; nil when either is faulty (each
    /// problem reported). A queue without `max-in-flight` would never fill: refused.
    mutating func compileAdmission(
        _ object: JSONObject, _ document: SourceDocument, _ pointer: String
    ) -> UpstreamAdmissionKeys? {
        let before = problems.count
        var result = UpstreamAdmissionKeys()
        if let value = object["max-in-flight"] {
            if case .number(let number) = value, let count = number.intValue, Self.maxInFlightRange.contains(count) {
                result.maxInFlight = count
            } else {
                report(
                    document, pointer + "/max-in-flight",
                    "`max-in-flight` must be a whole number from 1 to \(Self.maxInFlightRange.upperBound)")
            }
        }
        if let value = object["queue"] {
            result.queue = compileQueue(value, document, pointer + "/queue")
            if object["max-in-flight"] == nil {
                report(
                    document, pointer + "/queue",
                    "`queue` needs `max-in-flight`: fetches wait in it only beyond that many at once")
            }
        }
        return problems.count == before ? result : nil
    }

    private mutating func compileQueue(
        _ value: JSON, _ document: SourceDocument, _ pointer: String
    ) -> UpstreamQueueRule? {
        guard case .object(let object) = value else {
            report(document, pointer, Self.queueExample)
            return nil
        }
        _ = reportUnknownKeys(in: object, allowed: Self.queueKeys, what: "queue key", document, pointer)
        var size: Int?
        switch object["size"] {
        case nil:
            report(document, pointer, "`queue` needs `size`: how many fetches may wait at once")
        case .number(let number) where number.intValue.map(Self.queueSizeRange.contains) == true:
            size = number.intValue
        default:
            report(
                document, pointer + "/size",
                "`size` must be a whole number from 1 to \(Self.queueSizeRange.upperBound)")
        }
        var timeout: Int?
        switch object["timeout"] {
        case nil:
            report(document, pointer, "`queue` needs `timeout`: how long a fetch may wait, like 1s")
        case .string(let text)
        where Quantities.milliseconds(text).map(Self.queueTimeoutRange.contains) == true:
            timeout = Quantities.milliseconds(text)
        default:
            report(document, pointer + "/timeout", "`timeout` must be a duration from 1ms to 10m, like 250ms or 1s")
        }
        guard let size, let timeout else { return nil }
        return UpstreamQueueRule(size: size, timeoutMilliseconds: timeout)
    }
}
