import ReshapeJSON

extension RuleSetBuilder {
    private static let upstreamKeys: Set<String> = [
        "url", "timeout", "connect-timeout", "max-body", "headers", "query",
    ]

    /// Checks one `upstreams` entry and expands its `${VAR}`s. A variable's value is kept in
    /// `secrets` and never appears in a diagnostic.
    mutating func compileUpstream(_ entry: Entry) -> Upstream? {
        let document = entry.document
        guard case .object(let object) = entry.value else {
            report(document, entry.pointer, "upstream '\(entry.name)' must be a mapping with at least `url`")
            return nil
        }
        var ok = reportUnknownKeys(
            in: object, allowed: Self.upstreamKeys.union(Self.resilienceKeys).union(Self.admissionKeys),
            what: "upstream key", document,
            entry.pointer)
        var secrets: [String] = []
        func expanded(_ value: JSON?, at pointer: String, what: String) -> String? {
            guard let value else { return nil }
            let text: String
            switch value {
            case .string(let string): text = string
            case .number(let number): text = number.text
            case .bool(let flag): text = flag ? "true" : "false"
            default:
                report(document, pointer, "\(what) must be a string")
                return nil
            }
            switch expander.expand(text) {
            case .success(let result):
                secrets += result.secrets
                return result.text
            case .failure(.unset(let name)):
                report(
                    document, pointer, "environment variable \(name) is not set (use ${\(name):-default} for a default)"
                )
            case .failure(.malformed):
                report(document, pointer, "malformed ${...} reference in \(what)")
            }
            return nil
        }

        // A bad url does not stop the other keys being checked, so one run reports them all.
        var url: UpstreamURL?
        if let urlText = expanded(object["url"], at: entry.pointer + "/url", what: "`url`") {
            switch UpstreamURL.parse(urlText) {
            case .success(let parsed): url = parsed
            case .failure(let failure):
                // The URL may hold an expanded secret; say what is wrong without echoing it.
                report(document, entry.pointer + "/url", "invalid upstream url: \(failure.message)")
            }
        } else if object["url"] == nil {
            report(document, entry.pointer, "upstream '\(entry.name)' is missing `url`")
        }

        func duration(_ key: String, default fallback: Int) -> Int {
            guard let value = object[key] else { return fallback }
            if case .string(let text) = value, let ms = Quantities.milliseconds(text) { return ms }
            report(document, entry.pointer + "/" + key, "`\(key)` must be a duration like 250ms, 5s or 1m")
            ok = false
            return fallback
        }
        let timeout = duration("timeout", default: 10_000)
        let connectTimeout = duration("connect-timeout", default: 3_000)
        var maxBody = 64 << 20
        if let value = object["max-body"] {
            let text: String? =
                switch value {
                case .string(let string): string
                case .number(let number): number.text
                default: nil
                }
            if let text, let bytes = Quantities.bytes(text) {
                maxBody = bytes
            } else {
                report(document, entry.pointer + "/max-body", "`max-body` must be a size like 512KiB, 64MiB or 10MB")
                ok = false
            }
        }

        func pairs(_ key: String) -> [NameValue] {
            guard let value = object[key] else { return [] }
            guard case .object(let members) = value else {
                report(document, entry.pointer + "/" + key, "`\(key)` must be a mapping of names to values")
                ok = false
                return []
            }
            var result: [NameValue] = []
            for member in members.members {
                let pointer = entry.pointer + "/" + key + "/" + JSONPointer.escape(member.key)
                if key == "headers", !HeaderSyntax.isToken(member.key) {
                    report(document, pointer, "'\(member.key)' is not a valid header name")
                    ok = false
                    continue
                }
                guard let text = expanded(member.value, at: pointer, what: "`\(member.key)`") else {
                    ok = false
                    continue
                }
                if key == "headers", text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                    report(document, pointer, "header '\(member.key)' must not contain CR, LF or NUL")
                    ok = false
                    continue
                }
                result.append(NameValue(name: member.key, value: text))
            }
            return result
        }
        let headers = pairs("headers")
        let query = pairs("query")
        let resilience = compileResilience(object, document, entry.pointer)
        let admission = compileAdmission(object, document, entry.pointer)
        guard ok, let url, let resilience, let admission else { return nil }
        var upstream = Upstream(
            name: entry.name, scheme: url.scheme, host: url.host, port: url.port, basePath: url.basePath,
            timeoutMilliseconds: timeout, connectTimeoutMilliseconds: connectTimeout, maxBodyBytes: maxBody,
            headers: headers, query: query, secrets: secrets.filter { !$0.isEmpty })
        upstream.retry = resilience.retry
        upstream.circuit = resilience.circuit
        upstream.idlePool = resilience.idlePool
        upstream.redirects = resilience.redirects
        upstream.maxInFlight = admission.maxInFlight
        upstream.queue = admission.queue
        return upstream
    }
}

enum HeaderSyntax {
    /// RFC 9110 token characters.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }
}

/// `scheme://host[:port][/base/path]`, and nothing else: no user info, query or fragment.
struct UpstreamURL: Equatable {
    var scheme: String
    var host: String
    var port: Int?
    var basePath: String

    struct Failure: Error { let message: String }

    static func parse(_ text: String) -> Result<UpstreamURL, Failure> {
        guard let schemeEnd = text.firstRange(of: "://") else {
            return .failure(Failure(message: "expected scheme://host[:port][/path]"))
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            return .failure(Failure(message: "the scheme must be http or https"))
        }
        let rest = text[schemeEnd.upperBound...]
        if rest.contains("?") || rest.contains("#") {
            return .failure(Failure(message: "no query or fragment allowed; use `query`"))
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var basePath = String(rest[authorityEnd...])
        while basePath.hasSuffix("/") { basePath.removeLast() }
        if authority.contains("@") {
            return .failure(Failure(message: "user info is not allowed; put credentials in `headers` or `query`"))
        }
        var host = Substring(authority)
        var port: Int? = nil
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                return .failure(Failure(message: "unclosed '[' in the host"))
            }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()) else {
                    return .failure(Failure(message: "bad port"))
                }
                port = value
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else {
                return .failure(Failure(message: "bad port"))
            }
            port = value
            host = host[..<colon]
        }
        if let port, !(1...65535).contains(port) { return .failure(Failure(message: "the port must be 1 to 65535")) }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) })
        else {
            return .failure(Failure(message: "the host must be a DNS name or an IP address"))
        }
        if basePath.contains("%") || basePath.contains(" ")
            || basePath.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        {
            return .failure(Failure(message: "the base path must be plain segments (no '%', spaces, '.' or '..')"))
        }
        return .success(UpstreamURL(scheme: scheme, host: String(host).lowercased(), port: port, basePath: basePath))
    }
}
