/// Which redirects of an upstream are followed (`redirects:`), in the rules' own terms; each
/// hop is decided by `RedirectPolicy` (ReshapeProxy). Without it nothing is followed.
package struct RedirectRule: Sendable, Equatable {
    /// Hosts a redirect may lead to, besides the upstream's own origin.
    package var hosts: [HostPattern]
    /// Redirects followed for one fetch; one more is refused.
    package var max: Int

    package static let defaultMax = 3

    package init(hosts: [HostPattern], max: Int = RedirectRule.defaultMax) {
        self.hosts = hosts
        self.max = max
    }

    /// Whether `host` on `port` is one the rule allows (`defaultPort`: the scheme's).
    package func allows(host: String, port: Int, defaultPort: Int) -> Bool {
        hosts.contains { $0.matches(host: host, port: port, defaultPort: defaultPort) }
    }
}

/// One entry of `redirects.hosts`: an exact `host[:port]`, or `*.` and a domain, which matches
/// any name below that domain (not the domain itself). Without a port it matches the scheme's
/// default port only, as an origin would.
package struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    /// The host, lowercased (for `*.example.com`: `example.com`).
    package var host: String
    package var port: Int?
    /// `*.` + domain.
    package var isWildcard: Bool
    package var description: String

    package init(host: String, port: Int?, isWildcard: Bool, description: String) {
        self.host = host
        self.port = port
        self.isWildcard = isWildcard
        self.description = description
    }

    /// The pattern as written; nil with the reason when it is not one.
    package static func parse(_ text: String) -> Result<HostPattern, PatternError> {
        var rest = Substring(text.lowercased())
        let isWildcard = rest.hasPrefix("*.")
        if isWildcard { rest = rest.dropFirst(2) }
        var port: Int?
        if let colon = rest.lastIndex(of: ":") {
            guard let value = Int(rest[rest.index(after: colon)...]), (1...65535).contains(value) else {
                return .failure(PatternError(message: "the port must be 1 to 65535"))
            }
            port = value
            rest = rest[..<colon]
        }
        let labels = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard !rest.isEmpty, !labels.contains(where: \.isEmpty),
            rest.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        else {
            return .failure(
                PatternError(
                    message: "expected a host name like db.example.com, or *.example.com, with an optional :port"))
        }
        // `*.com` would allow half the internet.
        if isWildcard, labels.count < 2 {
            return .failure(
                PatternError(message: "a wildcard needs a domain of two labels or more, like *.example.com"))
        }
        return .success(HostPattern(host: String(rest), port: port, isWildcard: isWildcard, description: text))
    }

    package struct PatternError: Error, Equatable {
        package let message: String
    }

    /// `host` (lowercased) on `port`.
    package func matches(host candidate: String, port candidatePort: Int, defaultPort: Int) -> Bool {
        guard candidatePort == (port ?? defaultPort) else { return false }
        if isWildcard {
            return candidate.count > host.count + 1 && candidate.hasSuffix("." + host)
        }
        return candidate == host
    }
}
