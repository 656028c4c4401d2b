/// Parses the two kinds of path templates in a route.
enum TemplateParser {
    struct Failure: Error { let message: String }

    /// A client path such as `/users/{id}`: every capture is a whole segment, names are unique.
    static func requestPath(_ text: String) throws(Failure) -> PathTemplate {
        guard text.hasPrefix("/") else { throw Failure(message: "the path must start with '/'") }
        var segments: [PathTemplate.Segment] = []
        var seen: Set<String> = []
        for raw in PathTemplate.segments(of: text.dropFirst()) {
            if raw.hasPrefix("{") && raw.hasSuffix("}") && raw.count > 2 {
                let name = String(raw.dropFirst().dropLast())
                if RouteAuth.claim(ofParameter: name) != nil {
                    throw Failure(
                        message: "'{\(name)}' names a verified token's claim, which a client cannot send in the path")
                }
                try checkName(name)
                guard seen.insert(name).inserted else { throw Failure(message: "capture '{\(name)}' appears twice") }
                segments.append(.parameter(name))
            } else if raw.contains("{") || raw.contains("}") {
                throw Failure(message: "a capture must be a whole path segment, like /users/{id} (found '\(raw)')")
            } else if raw.contains("?") || raw.contains("#") || raw.contains("%") {
                throw Failure(message: "the path template must not contain '?', '#' or '%' (found '\(raw)')")
            } else {
                segments.append(.literal(String(raw)))
            }
        }
        return PathTemplate(segments: segments, description: text)
    }

    /// An upstream path such as `/users/{id}.json`: literal text and captures, concatenated.
    /// Its segments are parts of the text, not path segments.
    static func upstreamPath(_ text: String) throws(Failure) -> PathTemplate {
        guard text.hasPrefix("/") else { throw Failure(message: "the upstream path must start with '/'") }
        var parts: [PathTemplate.Segment] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { parts.append(.literal(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw Failure(message: "'{' without a closing '}'")
            }
            let name = String(rest[rest.index(after: open)..<close])
            try checkName(name)
            parts.append(.parameter(name))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw Failure(message: "'}' without an opening '{'") }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        // In any literal, not only the last: a '?' or '#' before a capture would move it into
        // the query or the (never sent) fragment.
        for case .literal(let literal) in parts where literal.contains("?") || literal.contains("#") {
            throw Failure(message: "the upstream path must not contain '?' or '#'; use the upstream's `query`")
        }
        return PathTemplate(segments: parts, description: text)
    }

    private static func checkName(_ name: String) throws(Failure) {
        // `{auth.<claim>}` in an upstream path: checked against the route's `auth` later.
        if let claim = RouteAuth.claim(ofParameter: name), AuthClaimName.isValid(claim) { return }
        guard let first = name.first, first.isLetter || first == "_",
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else {
            throw Failure(message: "'{\(name)}' is not a valid capture name (letters, digits, '_' and '-')")
        }
    }
}
