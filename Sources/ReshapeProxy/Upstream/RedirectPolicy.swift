import ReshapeRules

/// Where a redirect points: its `Location` resolved against the URL that answered, as the
/// upstream client read it.
package struct RedirectLocation: Sendable, Equatable {
    package var url: String
    /// Lowercased.
    package var scheme: String
    /// Lowercased; an IPv6 literal without brackets.
    package var host: String
    /// The port it names, or its scheme's default.
    package var port: Int
    /// A user name or password in the URL.
    package var hasUserInfo: Bool

    package init(url: String, scheme: String, host: String, port: Int, hasUserInfo: Bool) {
        self.url = url
        self.scheme = scheme
        self.host = host
        self.port = port
        self.hasUserInfo = hasUserInfo
    }

    /// `scheme://host:port`, what a problem may say of it: never the path or query, which can
    /// carry credentials.
    var origin: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}

/// Whether one redirect of an upstream's fetch or stream is followed: the upstream's
/// `redirects:` and its own origin. The upstream's credentials (its headers and query, the
/// client's forwarded headers) go with every hop, so a hop anywhere the rule does not name is
/// refused before anything is sent there.
package struct RedirectPolicy: Sendable {
    package let rule: RedirectRule
    let scheme: String
    let host: String
    let port: Int

    package init(rule: RedirectRule, upstream: Upstream) {
        self.rule = rule
        scheme = upstream.scheme
        host = upstream.host
        port = upstream.port ?? Self.defaultPort(upstream.scheme)
    }

    package enum Decision: Sendable, Equatable {
        /// Send the same request (method, headers, body) to `url`.
        case follow(url: String)
        /// Fail the fetch with `upstream-redirect-refused`, for this reason.
        case refuse(String)
    }

    /// The statuses that redirect; any other 3xx is an answer like any other.
    package static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// The `hopsDone`-th redirect so far answered `status` to a `method` request, pointing at
    /// `location` (nil: none, or one that is not a URL).
    package func decide(status: Int, location: RedirectLocation?, method: String, hopsDone: Int) -> Decision {
        guard hopsDone < rule.max else {
            return .refuse("the upstream redirected more than \(rule.max) times (redirects.max)")
        }
        guard let location else { return .refuse("the upstream answered \(status) without a usable Location") }
        guard location.scheme == scheme else {
            return .refuse("the upstream redirected from \(scheme) to \(location.scheme), which is never followed")
        }
        guard !location.hasUserInfo else {
            return .refuse("the upstream redirected to a URL with user info, which is never followed")
        }
        let ownOrigin = location.host == host && location.port == port
        guard ownOrigin || rule.allows(host: location.host, port: location.port, defaultPort: Self.defaultPort(scheme))
        else {
            return .refuse("the upstream redirected to \(location.origin), which redirects.hosts does not allow")
        }
        // 301, 302 and 303 turn a write into a GET in browsers; a write is never sent as a read.
        if status != 307, status != 308, method != "GET" {
            return .refuse("the upstream answered \(method) with \(status); a write is only redirected by 307 or 308")
        }
        return .follow(url: location.url)
    }
}
