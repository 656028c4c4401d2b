import ReshapeJSON

// What a route sends upstream besides its path: `forward-headers`, `headers` and `body`.

extension RuleSetBuilder {
    /// `forward-headers: [Authorization, X-Request-Id]`: HTTP tokens, each once (any case). A
    /// header that is never forwarded may be listed, but `reshape check` warns about it.
    mutating func compileForwardHeaders(_ value: JSON?, _ scope: RouteScope) -> [String] {
        guard let value else { return [] }
        let pointer = scope.pointer + "/forward-headers"
        guard case .array(let elements) = value else {
            report(scope.document, pointer, "`forward-headers` must be a list of header names")
            return []
        }
        var names: [String] = []
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index: index, to: pointer)
            guard let name = element.stringValue, HeaderSyntax.isToken(name) else {
                report(
                    scope.document, elementPointer,
                    "'\(element.stringValue ?? element.serializedString())' is not a valid header name")
                continue
            }
            guard seen.insert(name.lowercased()).inserted else {
                report(scope.document, elementPointer, "header '\(name)' is listed twice (names are case-insensitive)")
                continue
            }
            if !ForwardedHeaderPolicy.mayForward(name) {
                warn(
                    scope.document, elementPointer,
                    "'\(name)' is never forwarded (hop-by-hop, or set by Reshape itself); listing it has no effect")
            }
            names.append(name)
        }
        return names
    }

    /// `headers: { X-Client: "reshape-{id}" }`: per-route upstream headers. `${VAR}` is
    /// expanded now (its value becomes a secret, taken literally); `{capture}` must be one
    /// of the request's captures. A value with CR, LF or NUL is refused, and so is a header the
    /// route also forwards: the upstream would get both values.
    mutating func compileHeaders(_ value: JSON?, _ scope: RouteScope, forwarded: [String], secrets: inout [String])
        -> [HeaderRule]
    {
        guard let value else { return [] }
        let pointer = scope.pointer + "/headers"
        guard case .object(let members) = value else {
            report(scope.document, pointer, "`headers` must be a mapping of header names to values")
            return []
        }
        var rules: [HeaderRule] = []
        for member in members.members {
            let memberPointer = pointer + "/" + JSONPointer.escape(member.key)
            guard HeaderSyntax.isToken(member.key) else {
                report(scope.document, memberPointer, "'\(member.key)' is not a valid header name")
                continue
            }
            guard ForwardedHeaderPolicy.mayForward(member.key) else {
                report(
                    scope.document, memberPointer,
                    "'\(member.key)' cannot be set by a route: it describes the connection, which Reshape manages")
                continue
            }
            if forwarded.contains(where: { $0.lowercased() == member.key.lowercased() }) {
                report(
                    scope.document, memberPointer,
                    "header '\(member.key)' is both forwarded from the client (forward-headers) and set here; keep one")
                continue
            }
            let what = "header '\(member.key)'"
            guard let templateText = templateText(member.value, scope, at: memberPointer, what: what, secrets: &secrets)
            else { continue }
            if templateText.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                report(scope.document, memberPointer, "\(what) must not contain CR, LF or NUL")
                continue
            }
            if let template = template(templateText, scope, at: memberPointer, what: what) {
                rules.append(HeaderRule(name: member.key, template: template))
            }
        }
        return rules
    }

    /// A header's or query parameter's value as template text: a scalar, `${VAR}`s expanded (their
    /// values are secrets, taken literally); nil when reported.
    mutating func templateText(
        _ value: JSON, _ scope: RouteScope, at pointer: String, what: String, secrets: inout [String]
    )
        -> String?
    {
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let number): text = number.text
        case .bool(let flag): text = flag ? "true" : "false"
        default:
            report(scope.document, pointer, "\(what) must be a string")
            return nil
        }
        switch expandedAsTemplate(text) {
        case .success(let result):
            secrets += result.secrets
            return result.template
        case .failure(.unset(let name)):
            report(
                scope.document, pointer,
                "environment variable \(name) is not set (use ${\(name):-default} for a default)")
        case .failure(.malformed):
            report(scope.document, pointer, "malformed ${...} reference in \(what)")
        }
        return nil
    }

    /// Template text over the request's captures and, on a route with `auth`, its claims.
    mutating func template(_ text: String, _ scope: RouteScope, at pointer: String, what: String) -> StringTemplate? {
        switch StringTemplate.parse(text, parameterNames: scope.captures, authClaims: scope.hasAuth) {
        case .success(let template):
            return template
        case .failure(let failure):
            // Captures are only checked against a request template that compiled.
            if scope.requestTemplate != nil { report(scope.document, pointer, "\(what): \(failure.message)") }
            return nil
        }
    }

    /// `${VAR}`s expanded, each value's braces doubled so it stays literal in a `{capture}`
    /// template; the rest of the text is the template as written.
    func expandedAsTemplate(_ text: String) -> Result<
        (template: String, secrets: [String]), EnvironmentExpander.Failure
    > {
        expander.expand(text, inserting: { $0.replacing("{", with: "{{").replacing("}", with: "}}") })
            .map { (template: $0.text, secrets: $0.secrets) }
    }

    private static let bodyKeys: Set<String> = ["type", "transform", "encoding"]

    /// `body: { type, transform, encoding }` on a POST, PUT or PATCH route.
    mutating func compileBody(_ value: JSON?, method: String, _ scope: RouteScope) -> BodyRule? {
        guard let value else { return nil }
        let pointer = scope.pointer + "/body"
        if !method.isEmpty, !Self.bodyMethods.contains(method) {
            report(scope.document, pointer, "`body` is only for POST, PUT and PATCH routes (this route is \(method))")
        }
        let object: JSONObject
        switch value {
        case .object(let members): object = members
        case .null: object = JSONObject()  // `body:` alone: a JSON body, passed on as it is
        default:
            report(scope.document, pointer, "`body` must be a mapping with optional `type`, `transform` and `encoding`")
            return nil
        }
        _ = reportUnknownKeys(in: object, allowed: Self.bodyKeys, what: "body key", scope.document, pointer)
        var rule = BodyRule()
        if let type = object["type"] {
            if let name = type.stringValue, !name.isEmpty {
                rule.typeName = name
                if let types = scope.types {  // nil: the types failed, and that is reported already
                    if let validator = types.validator(named: name) {
                        rule.validator = validator
                    } else {
                        report(
                            scope.document, pointer + "/type",
                            "unknown type '\(name)' (types are declared under 'types:' in a rule file)")
                    }
                }
            } else {
                report(scope.document, pointer + "/type", "`type` must be a type name")
            }
        }
        if let transform = object["transform"] {
            if let pipeline = compileSteps(transform, scope, at: pointer + "/transform") { rule.transform = pipeline }
        }
        if let encoding = object["encoding"] {
            if let name = encoding.stringValue, let parsed = BodyEncoding(rawValue: name) {
                rule.encoding = parsed
            } else {
                report(scope.document, pointer + "/encoding", "`encoding` must be json or form")
            }
        }
        return rule
    }
}
