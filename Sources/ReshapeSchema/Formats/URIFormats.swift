/// RFC 3986 URIs and relative references, RFC 3987 IRIs (the same grammar with Unicode
/// allowed where characters are), and RFC 6570 URI templates.
enum URIFormats {
    private static let unreserved = Set("-._~".utf8)
    private static let subDelims = Set("!$&'()*+,;=".utf8)

    /// True when `scalar` may appear in a path/query/fragment (pchar or "/" "?" beside the
    /// extras given); `%` escapes are checked by the caller.
    private static func isPlain(_ scalar: Unicode.Scalar, extras: String, international: Bool) -> Bool {
        if !scalar.isASCII {
            return international && scalar.value >= 0xA0 && !(0xD800...0xDFFF).contains(scalar.value)
        }
        let b = UInt8(scalar.value)
        return Formats.isAlpha(b) || Formats.isDigit(b) || unreserved.contains(b) || subDelims.contains(b)
            || extras.utf8.contains(b)
    }

    /// Checks a component's characters: allowed plain ones and well-formed `%XX`.
    private static func isComponent(_ text: Substring, extras: String, international: Bool) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "%" {
                guard i + 2 < scalars.count, scalars[i + 1].isASCII, scalars[i + 2].isASCII,
                    Formats.isHex(UInt8(scalars[i + 1].value)), Formats.isHex(UInt8(scalars[i + 2].value))
                else { return false }
                i += 3
                continue
            }
            guard isPlain(scalars[i], extras: extras, international: international) else { return false }
            i += 1
        }
        return true
    }

    static func isURI(_ text: String, international: Bool, relative: Bool) -> Bool {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            guard isComponent(rest[rest.index(after: hash)...], extras: ":@/?", international: international) else {
                return false
            }
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            guard isComponent(rest[rest.index(after: question)...], extras: ":@/?", international: international) else {
                return false
            }
            rest = rest[..<question]
        }
        var hasScheme = false
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/") {
            let scheme = rest[..<colon].utf8
            guard let first = scheme.first, Formats.isAlpha(first),
                scheme.allSatisfy({ Formats.isAlpha($0) || Formats.isDigit($0) || "+-.".utf8.contains($0) })
            else { return false }
            hasScheme = true
            rest = rest[rest.index(after: colon)...]
        }
        if !hasScheme && !relative { return false }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            guard isAuthority(rest[..<end], international: international) else { return false }
            rest = rest[end...]
        }
        // A relative path's first segment cannot contain ":" (it would read as a scheme).
        return isComponent(rest, extras: ":@/", international: international)
    }

    private static func isAuthority(_ authority: Substring, international: Bool) -> Bool {
        var host = authority
        if let at = host.lastIndex(of: "@") {
            guard isComponent(host[..<at], extras: ":", international: international) else { return false }
            host = host[host.index(after: at)...]
        }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard HostFormats.isIPv6(String(literal)) || literal.first == "v" || literal.first == "V" else {
                return false
            }
            host = host[host.index(after: close)...]
            if host.isEmpty { return true }
            guard host.first == ":" else { return false }
            return host.dropFirst().utf8.allSatisfy(Formats.isDigit)
        }
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].utf8.allSatisfy(Formats.isDigit) else { return false }
            host = host[..<colon]
        }
        return isComponent(host, extras: "", international: international)
    }

    /// RFC 6570 level 4: literals, and `{op? name[:n|*], ...}` expressions.
    static func isURITemplate(_ text: String) -> Bool {
        var inExpression = false
        var expression = ""
        for scalar in text.unicodeScalars {
            if inExpression {
                if scalar == "}" {
                    guard isExpression(expression) else { return false }
                    inExpression = false
                    expression = ""
                } else if scalar == "{" {
                    return false
                } else {
                    expression.unicodeScalars.append(scalar)
                }
            } else if scalar == "{" {
                inExpression = true
            } else if scalar == "}" || " \"<>\\^`|".unicodeScalars.contains(scalar) || scalar.value < 0x20
                || scalar.value == 0x7F
            {
                return false
            }
        }
        return !inExpression
    }

    private static func isExpression(_ expression: String) -> Bool {
        var body = Substring(expression)
        if let first = body.first, "+#./;?&=,!@|".contains(first) { body = body.dropFirst() }
        guard !body.isEmpty else { return false }
        for variable in body.split(separator: ",", omittingEmptySubsequences: false) {
            var name = variable
            if name.hasSuffix("*") {
                name = name.dropLast()
            } else if let colon = name.firstIndex(of: ":") {
                let length = name[name.index(after: colon)...]
                guard (1...4).contains(length.count), length.utf8.allSatisfy(Formats.isDigit),
                    length.first != "0"
                else { return false }
                name = name[..<colon]
            }
            guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("."), !name.contains(".."),
                isComponent(name, extras: "", international: false),
                name.utf8.allSatisfy({
                    Formats.isAlpha($0) || Formats.isDigit($0) || $0 == UInt8(ascii: "_")
                        || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%") || Formats.isHex($0)
                })
            else { return false }
        }
        return true
    }
}
