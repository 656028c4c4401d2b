import ReshapeJSON

// `cors:`, at the top of a rule file (every route) or in a route (`false`, or its own block).

extension RuleSetBuilder {
    static let corsKeys: Set<String> = ["origins", "credentials", "max-age", "expose-headers"]

    /// `cors: { origins: [...], credentials: false, max-age: 10m, expose-headers: [...] }`.
    /// Every problem is reported; nil when there is one.
    mutating func compileCORS(_ value: JSON, _ document: SourceDocument, _ pointer: String) -> CORSPolicy? {
        guard case .object(let object) = value else {
            report(
                document, pointer,
                "`cors` must be a mapping like { origins: [\"https://app.example.com\"], credentials: false, max-age: 10m }"
            )
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: object, allowed: Self.corsKeys, what: "cors key", document, pointer)
        let origins = compileCORSOrigins(object["origins"], document, pointer)
        var credentials = false
        if let member = object["credentials"] {
            if case .bool(let flag) = member {
                credentials = flag
            } else {
                report(document, pointer + "/credentials", "`credentials` must be true or false")
            }
        }
        if credentials, case .any = origins {
            report(
                document, pointer + "/credentials",
                "`credentials: true` cannot go with origins [\"*\"]: a browser refuses credentials with `*`; list the origins"
            )
        }
        var maxAge = CORSPolicy.defaultMaxAgeSeconds
        if let member = object["max-age"] {
            if case .string(let text) = member, let milliseconds = Quantities.milliseconds(text), milliseconds >= 1000 {
                maxAge = milliseconds / 1000
            } else {
                report(document, pointer + "/max-age", "`max-age` must be a duration of a second or more, like 10m")
            }
        }
        let expose = compileCORSHeaderNames(object["expose-headers"], document, pointer + "/expose-headers")
        guard problems.count == before, let origins else { return nil }
        return CORSPolicy(origins: origins, credentials: credentials, maxAgeSeconds: maxAge, exposeHeaders: expose)
    }

    /// A route's `cors:`: `false` (not for browsers), `true` (as the top level says, the same as
    /// leaving it out) or a block of its own.
    mutating func compileRouteCORS(_ value: JSON?, _ scope: RouteScope) -> RouteCORS {
        switch value {
        case nil, .bool(true): return .inherited
        case .bool(false): return .off
        case .some(let block):
            return compileCORS(block, scope.document, scope.pointer + "/cors").map(RouteCORS.own) ?? .inherited
        }
    }

    /// `origins: ["https://app.example.com", "https://*.example.com"]`, or `["*"]` alone.
    private mutating func compileCORSOrigins(_ value: JSON?, _ document: SourceDocument, _ pointer: String)
        -> CORSPolicy.Origins?
    {
        let pointer = pointer + "/origins"
        guard let value else {
            report(
                document, pointer, "`cors` needs `origins`: the origins whose pages may read the answers, or [\"*\"]")
            return nil
        }
        guard case .array(let elements) = value, !elements.isEmpty else {
            report(document, pointer, "`origins` must be a non-empty list like [\"https://app.example.com\"]")
            return nil
        }
        if elements.count == 1, elements[0].stringValue == "*" { return .any }
        var origins: [CORSOrigin] = []
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index: index, to: pointer)
            guard let text = element.stringValue else {
                report(document, elementPointer, "an origin must be a string like \"https://app.example.com\"")
                continue
            }
            if text == "*" {
                report(document, elementPointer, "\"*\" stands for every origin: it must be the only one listed")
                continue
            }
            guard let origin = CORSOrigin.parse(text.lowercased()) else {
                report(
                    document, elementPointer,
                    "'\(text)' is not an origin: write scheme://host[:port] (or scheme://*.domain), no path or trailing slash"
                )
                continue
            }
            origins.append(origin)
        }
        return .listed(origins)
    }

    /// `expose-headers: [ETag, Reshape-Dropped]`: header names (HTTP tokens).
    private mutating func compileCORSHeaderNames(_ value: JSON?, _ document: SourceDocument, _ pointer: String)
        -> [String]
    {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            report(document, pointer, "`expose-headers` must be a list of header names")
            return []
        }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
            guard let name = element.stringValue, HeaderSyntax.isToken(name) else {
                report(
                    document, JSONPointer.appending(index: index, to: pointer),
                    "'\(element.stringValue ?? element.serializedString())' is not a valid header name")
                continue
            }
            if !names.contains(where: { $0.lowercased() == name.lowercased() }) { names.append(name) }
        }
        return names
    }
}
