import ReshapeJSON

extension RuleSetBuilder {
    private static let policyKeys: Set<String> = ["rate", "burst", "key"]
    /// The most requests a policy may allow per interval or at once: beyond it, a limit is no limit.
    static let maxLimitCount = 1_000_000_000

    /// One `limits:` policy: `rate` (`N/s`, `N/m`, `N/h`), `burst` (default N), `key`.
    mutating func compileLimitPolicy(_ entry: Entry) -> LimitPolicy? {
        let document = entry.document
        let label = "limit '\(entry.name)'"
        guard case .object(let object) = entry.value else {
            report(document, entry.pointer, "\(label) must be a mapping with `rate` and `key`")
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: object, allowed: Self.policyKeys, what: "limit key", document, entry.pointer)
        var rate: (count: Int, seconds: Int)?
        if let text = requiredString("rate", in: object, document, entry.pointer, label: label) {
            rate = Self.limitRate(text)
            if rate == nil {
                report(
                    document, entry.pointer + "/rate",
                    "`rate` must be a count per second, minute or hour, like 10/s, 1000/m or 5000/h (found '\(text)')")
            } else if let given = rate, given.count > given.seconds * 1_000_000 {
                // Less than a microsecond between two requests: beyond what is measured.
                report(
                    document, entry.pointer + "/rate",
                    "`rate` may be at most 1000000 per second (found '\(text)')")
                rate = nil
            }
        }
        var burst = rate?.count
        if let value = object["burst"] {
            if case .number(let number) = value, let count = Int(exactly: number.doubleValue), count >= 1,
                count <= Self.maxLimitCount
            {
                burst = count
            } else {
                report(document, entry.pointer + "/burst", "`burst` must be a whole number from 1 to 1000000000")
            }
        }
        var key: LimitPolicy.Key?
        if let text = requiredString("key", in: object, document, entry.pointer, label: label) {
            key = Self.limitKey(text)
            if key == nil {
                report(
                    document, entry.pointer + "/key",
                    "`key` must be client-address, header.NAME, query.NAME, auth.CLAIM or a capture like {id} (found '\(text)')"
                )
            }
        }
        guard problems.count == before, let rate, let burst, let key else { return nil }
        return LimitPolicy(
            name: entry.name, count: rate.count, intervalSeconds: rate.seconds, burst: burst, key: key,
            location: entry.location)
    }

    /// `10/s`, `1000/m`, `5000/h`: a count from 1 and the interval in seconds.
    static func limitRate(_ text: String) -> (count: Int, seconds: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0]), count >= 1, count <= maxLimitCount else {
            return nil
        }
        switch parts[1] {
        case "s": return (count, 1)
        case "m": return (count, 60)
        case "h": return (count, 3600)
        default: return nil
        }
    }

    /// One value a request is counted under (never a template).
    static func limitKey(_ text: String) -> LimitPolicy.Key? {
        func name(after prefix: String) -> String? {
            guard text.hasPrefix(prefix) else { return nil }
            let rest = String(text.dropFirst(prefix.count))
            guard !rest.isEmpty, !rest.contains(where: { $0 == " " || $0 == "{" || $0 == "}" }) else { return nil }
            return rest
        }
        if text == "client-address" { return .clientAddress }
        if let header = name(after: "header.") {
            // Header names are tokens (RFC 9110 §5.6.2).
            guard HeaderSyntax.isToken(header) else { return nil }
            return .header(header)
        }
        if let query = name(after: "query.") { return .query(query) }
        if let claim = name(after: "auth.") { return .auth(claim) }
        if text.hasPrefix("{"), text.hasSuffix("}"), text.count > 2 {
            let capture = String(text.dropFirst().dropLast())
            guard !capture.contains(where: { $0 == "{" || $0 == "}" || $0 == " " || $0 == "." }) else { return nil }
            return .capture(capture)
        }
        return nil
    }

    /// A route's `limit:`: a list of policy names, each defined, each key one the route has.
    mutating func compileRouteLimit(_ value: JSON?, _ scope: RouteScope) -> [String] {
        guard let value else { return [] }
        let pointer = scope.pointer + "/limit"
        guard case .array(let items) = value, !items.isEmpty, items.allSatisfy({ $0.stringValue != nil }) else {
            report(scope.document, pointer, "`limit` must be a non-empty list of policy names from `limits:`")
            return []
        }
        var names: [String] = []
        for (index, item) in items.enumerated() {
            let name = item.stringValue ?? ""
            let itemPointer = pointer + "/\(index)"
            if names.contains(name) {
                report(scope.document, itemPointer, "policy '\(name)' is listed twice")
                continue
            }
            names.append(name)
            // Defined but refused: its own problem is reported where it is written.
            if limitNames.contains(name), limitPolicies[name] == nil { continue }
            guard let policy = limitPolicies[name] else {
                let defined =
                    limitNames.isEmpty
                    ? " (no `limits:` policies are defined)"
                    : " (defined: \(limitNames.sorted().joined(separator: ", ")))"
                report(scope.document, itemPointer, "unknown limit policy '\(name)'\(defined)")
                continue
            }
            switch policy.key {
            case .auth(let claim) where !scope.hasAuth:
                report(
                    scope.document, itemPointer,
                    "policy '\(name)' is keyed by auth.\(claim), but the route has no `auth`: every request would share one bucket"
                )
            case .capture(let capture) where !scope.captures.contains(capture):
                let captures = scope.captures.sorted().map { "{\($0)}" }.joined(separator: ", ")
                report(
                    scope.document, itemPointer,
                    "policy '\(name)' is keyed by {\(capture)}, which the route's request does not capture"
                        + (captures.isEmpty ? "" : " (it captures \(captures))"))
            default:
                break
            }
        }
        return names
    }
}
