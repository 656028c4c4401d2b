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
            let what = "query parameter '\(member.key)'"
            if let text = templateText(member.value, scope, at: memberPointer, what: what, secrets: &secrets),
                let template = template(text, scope, at: memberPointer, what: what)
            {
                rules.append(HeaderRule(name: member.key, template: template))
            }
        }
        return rules
    }
}
