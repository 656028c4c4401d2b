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

    /// The policies of `route` for `phase`, decided for the request at `now`: every policy is
    /// counted, and if one refuses, the ones that admitted give their request back (a refused
    /// request costs no policy anything). The strictest refusal, the longest wait, is the answer.
    package func check(
        _ route: Route, policies: [String: LimitPolicy], phase: Phase, request: HTTPRequest,
        parameters: [String: String], now: Double
    ) -> Check {
        var check = Check()
        // Each admission's key, policy and remaining count, to give back if another refuses.
        var admitted: [(key: LimitKey, gcra: GCRA, name: String, remaining: Int, item: Int)] = []
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
            let gcra = GCRA(count: policy.count, intervalSeconds: policy.intervalSeconds, burst: policy.burst)
            let key = LimitKey(policy: name, value: value)
            check.policyItems.append("\(Self.quoted(name));q=\(policy.count);w=\(policy.intervalSeconds)")
            switch table.decide(key, gcra, now: now) {
            case .admitted(_, let remaining, _):
                admitted.append((key, gcra, name, remaining, check.stateItems.count))
                check.stateItems.append("\(Self.quoted(name));r=\(remaining);t=0")
            case .limited(let retryAfter, _):
                let seconds = max(1, Int(retryAfter.rounded(.up)))
                check.stateItems.append("\(Self.quoted(name));r=0;t=\(seconds)")
                if seconds > check.refusal?.retryAfterSeconds ?? 0 {
                    check.refusal = Check.Refusal(policy: name, retryAfterSeconds: seconds)
                }
            }
        }
        if check.refusal != nil {
            for admission in admitted {
                table.refund(admission.key, admission.gcra)
                check.stateItems[admission.item] = "\(Self.quoted(admission.name));r=\(admission.remaining + 1);t=0"
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

    /// A structured-field string (RFC 8941 §3.3.3): the policy's name in quotes.
    static func quoted(_ name: String) -> String {
        var out = "\""
        for character in name.unicodeScalars
        where character.isASCII && character.value >= 0x20 && character.value < 0x7F {
            if character == "\"" || character == "\\" { out += "\\" }
            out.unicodeScalars.append(character)
        }
        return out + "\""
    }
}
