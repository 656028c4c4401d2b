import ReshapeRules

/// The process's rate limits, shared by every loop: the key table and which peers are trusted
/// proxies. Pure: each decision is handed the request, its parameters and the time.
package struct RateLimiter: Sendable {
    package let table: LimitTable
    package let trustedProxies: [AddressRange]

    package init(table: LimitTable, trustedProxies: [AddressRange] = []) {
        self.table = table
        self.trustedProxies = trustedProxies
    }

    /// When a policy is checked: before the token (address, header, query, capture: a flood of
    /// bad tokens is limited too) or after it is accepted (`auth.*`: a 401 is never a 429).
    package enum Phase: Sendable {
        case beforeAuth
        case afterAuth(claims: [String: String])
    }

    /// One policy of the route counted for one request.
    package struct Entry: Sendable, Equatable {
        package let policy: LimitPolicy
        /// The key in this process's table.
        package let key: LimitKey
        /// The key's name in Redis, made only where replicas share their limits.
        package let sharedName: String?
        package let gcra: GCRA

        package init(policy: LimitPolicy, key: LimitKey, sharedName: String? = nil) {
            self.policy = policy
            self.key = key
            self.sharedName = sharedName
            gcra = GCRA(count: policy.count, intervalSeconds: policy.intervalSeconds, burst: policy.burst)
        }
    }

    /// What the route's policies of one phase say about a request.
    package struct Check: Sendable, Equatable {
        /// Each policy's `RateLimit-Policy` and `RateLimit` items, in the route's order.
        package var policyItems: [String] = []
        package var stateItems: [String] = []
        /// The policy that refused it and the whole seconds to wait; nil: admitted.
        package var refusal: Refusal?

        package struct Refusal: Sendable, Equatable {
            package var policy: String
            package var retryAfterSeconds: Int
        }
    }

    /// One policy's verdict from wherever it was made (this table or Redis): admitted or not,
    /// how many more would be admitted now, and the seconds until one would be.
    package struct Verdict: Sendable, Equatable {
        package var admitted: Bool
        package var remaining: Int
        package var retryAfterSeconds: Double

        package init(admitted: Bool, remaining: Int, retryAfterSeconds: Double) {
            self.admitted = admitted
            self.remaining = remaining
            self.retryAfterSeconds = retryAfterSeconds
        }
    }

    /// The route's policies of `phase`, each with the key this request is counted under (and its
    /// name in Redis when `shared`).
    package func entries(
        _ route: Route, policies: [String: LimitPolicy], phase: Phase, request: HTTPRequest,
        parameters: [String: String], shared: Bool = false
    ) -> [Entry] {
        var entries: [Entry] = []
        for name in route.limit {
            guard let policy = policies[name] else { continue }
            let value: String
            switch (policy.key, phase) {
            case (.auth(let claim), .afterAuth(let claims)): value = claims[claim] ?? ""
            case (.auth, .beforeAuth), (_, .afterAuth): continue
            case (.clientAddress, .beforeAuth):
                value = ClientAddress.of(
                    peer: request.peerAddress, forwardedFor: request.joinedHeader("X-Forwarded-For"),
                    trusted: trustedProxies)
            case (.header(let header), .beforeAuth): value = request.joinedHeader(header) ?? ""
            case (.query(let query), .beforeAuth): value = Self.queryValue(query, in: request.rawQuery) ?? ""
            case (.capture(let capture), .beforeAuth): value = parameters[capture] ?? ""
            }
            entries.append(
                Entry(
                    policy: policy, key: LimitKey(policy: name, value: value),
                    sharedName: shared ? LimitKey.sharedName(policy: name, value: value) : nil))
        }
        return entries
    }

    /// The entries decided in this process's table at `now`: every one is counted, and if one
    /// refuses, the ones that admitted give their request back (a refused request costs no
    /// policy anything).
    package func decideLocally(_ entries: [Entry], now: Double) -> [Verdict] {
        var verdicts = entries.map { entry in
            switch table.decide(entry.key, entry.gcra, now: now) {
            case .admitted(_, let remaining, _): Verdict(admitted: true, remaining: remaining, retryAfterSeconds: 0)
            case .limited(let wait, _): Verdict(admitted: false, remaining: 0, retryAfterSeconds: wait)
            }
        }
        if verdicts.contains(where: { !$0.admitted }) {
            for index in entries.indices where verdicts[index].admitted {
                table.refund(entries[index].key, entries[index].gcra)
                verdicts[index].remaining += 1
            }
        }
        return verdicts
    }

    /// What makes the request's key ambiguous, or nil: a `query.NAME` or `header.NAME` key
    /// given more than once. The upstream gets every occurrence, so counting one of them (or
    /// all joined) would let `?key=<random>&key=REAL` land each request in a fresh bucket.
    package func repeatedKey(_ route: Route, policies: [String: LimitPolicy], request: HTTPRequest) -> String? {
        for name in route.limit {
            switch policies[name]?.key {
            case .header(let header):
                let lines = request.headers.filter { RequestFraming.equalsIgnoringCase($0.name, header) }.count
                if lines > 1 { return "header \(header) appears \(lines) times; it keys a rate limit, send it once" }
            case .query(let query):
                let count = Self.queryCount(query, in: request.rawQuery)
                if count > 1 {
                    return "query parameter '\(query)' appears \(count) times; it keys a rate limit, send it once"
                }
            default: continue
            }
        }
        return nil
    }

    /// How many times query parameter `name` (percent-decoded) appears.
    static func queryCount(_ name: String, in rawQuery: Substring) -> Int {
        rawQuery.split(separator: "&", omittingEmptySubsequences: true).count { pair in
            let equals = pair.firstIndex(of: "=")
            return PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusIsSpace: true) == name
        }
    }

    /// The headers' items and the answer: the strictest refusal, the longest wait, answers.
    package static func check(_ entries: [Entry], _ verdicts: [Verdict]) -> Check {
        var check = Check()
        for (entry, verdict) in zip(entries, verdicts) {
            check.policyItems.append(entry.policy.policyItem)
            let name = entry.policy.quotedName
            guard !verdict.admitted else {
                check.stateItems.append("\(name);r=\(verdict.remaining);t=0")
                continue
            }
            let seconds = max(1, Int(verdict.retryAfterSeconds.rounded(.up)))
            check.stateItems.append("\(name);r=0;t=\(seconds)")
            if seconds > check.refusal?.retryAfterSeconds ?? 0 {
                check.refusal = Check.Refusal(policy: entry.policy.name, retryAfterSeconds: seconds)
            }
        }
        return check
    }

    /// The first value of query parameter `name`, percent-decoded; nil when absent or undecodable.
    static func queryValue(_ name: String, in rawQuery: Substring) -> String? {
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            guard PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusIsSpace: true) == name else {
                continue
            }
            return PercentEncoding.decode(equals.map { pair[pair.index(after: $0)...] } ?? "", plusIsSpace: true)
        }
        return nil
    }
}
