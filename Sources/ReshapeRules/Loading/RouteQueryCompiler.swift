import ReshapeJSON

extension RuleSetBuilder {
    /// `query: { orderBy: '"owner"', equalTo: '"{auth.sub}"' }`: upstream query parameters of a
    /// route, each value a template of the request's captures and, on a route with `auth`, its
    /// verified claims; `${VAR}` expanded now, as in `headers`. A name the route also forwards
    /// from the client, or one of Firebase's on a `firebase-query` route, is refused: the
    /// upstream would get two values.
    mutating func compileUpstreamQuery(
        _ value: JSON?, _ scope: RouteScope, forwardQuery: [String], secrets: inout [String]
    ) -> [HeaderRule] {
        guard let value else { return [] }
        let pointer = scope.pointer + "/query"
        guard case .object(let members) = value else {
            report(scope.document, pointer, "`query` must be a mapping of query parameter names to values")
            return []
        }
        var rules: [HeaderRule] = []
        for member in members.members {
            let memberPointer = pointer + "/" + JSONPointer.escape(member.key)
            guard !member.key.isEmpty else {
                report(scope.document, memberPointer, "a query parameter needs a name")
                continue
            }
            if forwardQuery.contains(member.key) {
                report(
                    scope.document, memberPointer,
                    "query parameter '\(member.key)' is both forwarded from the client (forward-query) and set here; keep one"
                )
                continue
            }
            if scope.firebaseQuery, FirebaseQuery.names.contains(member.key) {
                report(
                    scope.document, memberPointer,
                    "query parameter '\(member.key)' is the client's on a route with `firebase-query: true`; keep one")
                continue
            }
            let text: String
            switch member.value {
            case .string(let string): text = string
            case .number(let number): text = number.text
            case .bool(let flag): text = flag ? "true" : "false"
            default:
                report(scope.document, memberPointer, "query parameter '\(member.key)' must be a string")
                continue
            }
            let templateText: String
            switch expandedAsTemplate(text) {
            case .success(let result):
                templateText = result.template
                secrets += result.secrets
            case .failure(.unset(let name)):
                report(
                    scope.document, memberPointer,
                    "environment variable \(name) is not set (use ${\(name):-default} for a default)")
                continue
            case .failure(.malformed):
                report(scope.document, memberPointer, "malformed ${...} reference in query parameter '\(member.key)'")
                continue
            }
            switch StringTemplate.parse(templateText, parameterNames: scope.captures, authClaims: scope.hasAuth) {
            case .success(let template):
                rules.append(HeaderRule(name: member.key, template: template))
            case .failure(let failure):
                if scope.requestTemplate != nil {
                    report(scope.document, memberPointer, "query parameter '\(member.key)': \(failure.message)")
                }
            }
        }
        return rules
    }
}
