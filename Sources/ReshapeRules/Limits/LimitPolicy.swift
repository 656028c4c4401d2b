/// A named rate limit under the top-level `limits:` key: GCRA over `rate` per `interval`, with
/// `burst` requests at once, per value of `key`.
package struct LimitPolicy: Sendable, Equatable {
    /// What a request is counted under.
    package enum Key: Sendable, Equatable {
        /// The TCP peer, or with trusted proxies the first untrusted `X-Forwarded-For` from the right.
        case clientAddress
        case header(String)
        case query(String)
        /// A verified token's claim (the route needs `auth`).
        case auth(String)
        /// A path capture of the route's request template.
        case capture(String)
    }

    package let name: String
    /// Requests allowed per `intervalSeconds` (`10/s`: 10 and 1).
    package let count: Int
    package let intervalSeconds: Int
    /// Requests allowed at once; defaults to `count`.
    package var burst: Int
    package var key: Key
    package var location: SourceLocation
    /// The name as a structured-field string (RFC 8941 §3.3.3), as the `RateLimit` headers
    /// carry it, and the policy's `RateLimit-Policy` item: fixed per rule set, not made per request.
    package let quotedName: String
    package let policyItem: String

    package init(name: String, count: Int, intervalSeconds: Int, burst: Int, key: Key, location: SourceLocation) {
        self.name = name
        self.count = count
        self.intervalSeconds = intervalSeconds
        self.burst = burst
        self.key = key
        self.location = location
        quotedName = Self.quoted(name)
        policyItem = "\(quotedName);q=\(count);w=\(intervalSeconds)"
    }

    /// A structured-field string: the text in quotes, printable ASCII only, `"` and `\` escaped.
    package static func quoted(_ name: String) -> String {
        // Policy names are YAML keys, nearly always plain: then only the quotes are added.
        if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + name + "\""
        }
        var out = "\""
        for character in name.unicodeScalars
        where character.isASCII && character.value >= 0x20 && character.value < 0x7F {
            if character == "\"" || character == "\\" { out += "\\" }
            out.unicodeScalars.append(character)
        }
        return out + "\""
    }
}

/// An upstream's `queue:`: fetches beyond its `max-in-flight` wait here, at most `size` of
/// them for at most `timeoutMilliseconds` each.
package struct UpstreamQueueRule: Sendable, Equatable {
    package var size: Int
    package var timeoutMilliseconds: Int

    package init(size: Int, timeoutMilliseconds: Int) {
        self.size = size
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}
