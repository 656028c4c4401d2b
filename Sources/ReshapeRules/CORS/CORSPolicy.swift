/// The top-level `cors:` (or a route's own block): which browser origins may read a route's
/// answers, and what a browser may keep and read of them (the Fetch standard's CORS protocol).
package struct CORSPolicy: Sendable, Equatable {
    /// Who may read: every origin (`["*"]`), or those listed.
    package enum Origins: Sendable, Equatable {
        case any
        case listed([CORSOrigin])
    }

    package var origins: Origins
    /// `credentials: true`: `Access-Control-Allow-Credentials: true` (never with `.any`).
    package var credentials: Bool
    /// How long a browser may keep a preflight's answer (`Access-Control-Max-Age`).
    package var maxAgeSeconds: Int
    /// Headers exposed beyond those an answer carries (`expose-headers`).
    package var exposeHeaders: [String]

    /// Ten minutes: Chromium keeps a preflight at most two hours, Firefox one day; without a
    /// value a browser keeps it five seconds, which asks again before nearly every request.
    package static let defaultMaxAgeSeconds = 600

    package init(
        origins: Origins, credentials: Bool = false, maxAgeSeconds: Int = Self.defaultMaxAgeSeconds,
        exposeHeaders: [String] = []
    ) {
        self.origins = origins
        self.credentials = credentials
        self.maxAgeSeconds = maxAgeSeconds
        self.exposeHeaders = exposeHeaders
    }

    /// Whether a page of `origin` (the request's `Origin`, as a browser serializes it) may read.
    package func allows(_ origin: String) -> Bool {
        switch origins {
        case .any: true
        case .listed(let list): list.contains { $0.matches(origin) }
        }
    }
}

/// One allowed origin as written: `scheme://host[:port]`, or `scheme://*.domain[:port]` for
/// every subdomain of `domain` (at any depth, not `domain` itself).
package struct CORSOrigin: Sendable, Equatable, CustomStringConvertible {
    package enum Host: Sendable, Equatable {
        case exact(String)
        case subdomains(of: String)
    }

    package var scheme: String
    package var host: Host
    package var port: Int?

    package init(scheme: String, host: Host, port: Int? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    package var description: String {
        let host =
            switch self.host {
            case .exact(let name): name
            case .subdomains(let domain): "*." + domain
            }
        return scheme + "://" + host + (port.map { ":\($0)" } ?? "")
    }

    /// Browsers send an origin lower-cased, without a default port and without a path: it
    /// matches when it is that text (a wildcard: with one or more labels before the domain).
    package func matches(_ origin: String) -> Bool {
        guard let parsed = CORSOrigin.parse(origin.lowercased()), parsed.scheme == scheme, parsed.port == port,
            case .exact(let name) = parsed.host
        else { return false }
        switch host {
        case .exact(let allowed): return name == allowed
        case .subdomains(let domain):
            return name.hasSuffix("." + domain) && name.utf8.count > domain.utf8.count + 1
        }
    }

    /// Reads `scheme://host[:port]` (`host` may be `*.domain`); nil when it is anything else: a
    /// path, a query, user info, an empty or malformed host, a port out of range.
    package static func parse(_ text: String) -> CORSOrigin? {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let scheme = String(text[..<colon])
        guard let first = scheme.utf8.first, isLetter(first),
            scheme.utf8.allSatisfy({
                isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        var rest = text[text.index(colon, offsetBy: 3)...]
        var port: Int?
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            let digits = rest[rest.index(after: colon)...]
            guard !digits.isEmpty, digits.utf8.count <= 5, digits.utf8.allSatisfy(isDigit), let value = Int(digits),
                (1...65535).contains(value)
            else { return nil }
            port = value
            rest = rest[..<colon]
        }
        let host = String(rest)
        if host.hasPrefix("*.") {
            let domain = String(host.dropFirst(2))
            guard isHostName(domain) else { return nil }
            return CORSOrigin(scheme: scheme, host: .subdomains(of: domain), port: port)
        }
        guard isHostName(host) || isBracketedIPv6(host) else { return nil }
        return CORSOrigin(scheme: scheme, host: .exact(host), port: port)
    }

    /// Dot-separated labels of letters, digits and `-` (an IPv4 address is one too).
    private static func isHostName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return !text.isEmpty && text.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.count <= 63
                    && label.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }
            }
    }

    private static func isBracketedIPv6(_ text: String) -> Bool {
        guard text.hasPrefix("["), text.hasSuffix("]"), text.utf8.count > 2 else { return false }
        return text.dropFirst().dropLast().utf8.allSatisfy {
            isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) || $0 == UInt8(ascii: ":")
                || $0 == UInt8(ascii: ".")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

/// A route's `cors:`: as the rule set says (no key), not for browsers (`false`), or its own block.
package enum RouteCORS: Sendable, Equatable {
    case inherited
    case off
    case own(CORSPolicy)

    /// The policy the route answers by, given the rule set's top-level one.
    package func policy(topLevel: CORSPolicy?) -> CORSPolicy? {
        switch self {
        case .inherited: topLevel
        case .off: nil
        case .own(let policy): policy
        }
    }
}
