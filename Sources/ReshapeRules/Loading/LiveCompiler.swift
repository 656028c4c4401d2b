import ReshapeJSON

extension RuleSetBuilder {
    static let liveKeys: Set<String> = ["keep-alive", "max-subscribers", "buffer"]

    /// `live: true`, or `live: { keep-alive: 15s, max-subscribers: 10000, buffer: 1MiB }`; `false`
    /// is the same as leaving it out. Only a GET route with one fetch and no `expand` can be live:
    /// its answer is one upstream stream's document, normalized.
    mutating func compileLive(
        _ value: JSON?, method: String, hasFetchList: Bool, hasStages: Bool, _ scope: RouteScope
    ) -> LivePolicy? {
        guard let value else { return nil }
        let pointer = scope.pointer + "/live"
        var policy = LivePolicy()
        switch value {
        case .bool(false):
            return nil
        case .bool(true):
            break
        case .object(let object):
            _ = reportUnknownKeys(in: object, allowed: Self.liveKeys, what: "live key", scope.document, pointer)
            if let member = object["keep-alive"] {
                if case .string(let text) = member, let milliseconds = Quantities.milliseconds(text), milliseconds > 0 {
                    policy.keepAliveMilliseconds = milliseconds
                } else {
                    report(scope.document, pointer + "/keep-alive", "`keep-alive` must be a duration like 15s")
                }
            }
            if let member = object["max-subscribers"] {
                if case .number(let number) = member, let count = Int(number.text), count > 0 {
                    policy.maxSubscribers = count
                } else {
                    report(
                        scope.document, pointer + "/max-subscribers",
                        "`max-subscribers` must be a whole number above 0")
                }
            }
            if let member = object["buffer"] {
                if case .string(let text) = member, let bytes = Quantities.bytes(text), bytes > 0 {
                    policy.bufferBytes = bytes
                } else {
                    report(scope.document, pointer + "/buffer", "`buffer` must be a size like 256KiB or 1MiB")
                }
            }
        default:
            report(
                scope.document, pointer,
                "`live` must be true, false or a mapping like { keep-alive: 15s, max-subscribers: 10000, buffer: 1MiB }"
            )
            return nil
        }
        if !method.isEmpty && method != "GET" {
            reportAtKey(scope.document, pointer, "`live` is only for GET routes (a \(method) has no stream to follow)")
        }
        if hasFetchList {
            reportAtKey(
                scope.document, pointer,
                "`live` needs one upstream fetch (`upstream` and `path`), not a `fetch:` list: one stream per answer")
        }
        if hasStages {
            reportAtKey(
                scope.document, pointer,
                "`live` cannot follow an `expand`: its follow-up fetches are not part of the upstream's stream")
        }
        return policy
    }
}
