import ReshapeJSON

/// A string with `{param}` placeholders filled from the request's path captures.
/// `{{` and `}}` stand for literal braces.
struct StringTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }
    let parts: [Part]

    /// Nil message on success; otherwise why `text` is not a template over `parameterNames`.
    /// `authClaims`: `{auth.<claim>}` names a verified token's claim (a route with `auth`).
    static func parse(_ text: String, parameterNames: Set<String>, authClaims: Bool = false) -> Result<
        StringTemplate, TemplateError
    > {
        var parts: [Part] = []
        var literal = ""
        var iterator = text.unicodeScalars.makeIterator()
        var pending = iterator.next()
        while let scalar = pending {
            pending = iterator.next()
            switch scalar {
            case "{" where pending == "{":
                literal.unicodeScalars.append("{")
                pending = iterator.next()
            case "}" where pending == "}":
                literal.unicodeScalars.append("}")
                pending = iterator.next()
            case "{":
                var name = ""
                var closed = false
                while let next = pending {
                    pending = iterator.next()
                    if next == "}" {
                        closed = true
                        break
                    }
                    name.unicodeScalars.append(next)
                }
                guard closed else {
                    return .failure(
                        TemplateError(message: "'{' without a closing '}' (write '{{' for a literal brace)"))
                }
                guard !name.isEmpty else { return .failure(TemplateError(message: "empty placeholder '{}'")) }
                if let claim = RouteAuth.claim(ofParameter: name) {
                    if let problem = AuthClaimName.problem(claim, routeHasAuth: authClaims) {
                        return .failure(TemplateError(message: "'{\(name)}' \(problem)"))
                    }
                } else if !parameterNames.contains(name) {
                    let known = parameterNames.sorted().map { "{\($0)}" }.joined(separator: ", ")
                    return .failure(
                        TemplateError(
                            message: "'{\(name)}' is not captured by the route's request path"
                                + (known.isEmpty ? " (it captures nothing)" : " (it captures \(known))")))
                }
                if !literal.isEmpty {
                    parts.append(.literal(literal))
                    literal = ""
                }
                parts.append(.parameter(name))
            default:
                literal.unicodeScalars.append(scalar)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return .success(StringTemplate(parts: parts))
    }

    struct TemplateError: Error { let message: String }

    /// The captures and `auth.<claim>`s it names.
    var parameterNames: [String] { parts.compactMap { if case .parameter(let name) = $0 { name } else { nil } } }

    /// True when the template has no placeholders (so it can be stored as a plain value).
    var isLiteral: Bool { parts.allSatisfy { if case .literal = $0 { true } else { false } } }

    /// The text with placeholders filled; a parameter missing at run time becomes "".
    func render(_ parameters: [String: String]) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .parameter(let name): text += parameters[name] ?? ""
            }
        }
        return text
    }
}
