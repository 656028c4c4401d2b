import ReshapeJSON

/// What an example of a route may give, from the route's own compiled parts.
struct ExampleShape {
    /// Nil when the route's fetches were faulty (already reported): the names are not checked.
    let fetches: [FetchRule]?
    let body: BodyRule?
    /// The route has a `body` key (even a faulty one): `request-body` is not a second mistake.
    let hasBodyKey: Bool
    let hasStages: Bool
    /// The route has a `transform`: without one, `follow-ups` are not judged.
    let transformCompiled: Bool
    /// How the route uses a Firebase query (`firebase-query: true`), for an example's `query`.
    var firebaseQuery = FirebaseQuery.Use.off
    /// The route has `client-query`: an example's `query` may ask for a view.
    var clientQuery = false

    var isFanOut: Bool { !(fetches.map { $0.count == 1 && $0[0].name.isEmpty } ?? true) }
}

extension RuleSetBuilder {
    private static let exampleKeys: Set<String> = [
        "upstream", "response", "params", "dropped", "error", "request-body", "sends", "follow-ups", "query",
    ]

    /// A route's `examples`; nil when any of them is faulty (each problem reported).
    mutating func compileExamples(_ value: JSON?, shape: ExampleShape, document: SourceDocument, pointer: String)
        -> [RouteExample]?
    {
        guard let value else { return [] }
        guard case .array(let items) = value else {
            report(document, pointer, "`examples` must be a list of {upstream, response} fixtures")
            return nil
        }
        let before = problems.count
        var examples: [RouteExample] = []
        for (index, item) in items.enumerated() {
            let itemPointer = JSONPointer.appending(index: index, to: pointer)
            guard case .object(let object) = item else {
                report(
                    document, itemPointer,
                    "an example needs `upstream` (what the upstream sends) and `response` or `error`")
                continue
            }
            _ = reportUnknownKeys(in: object, allowed: Self.exampleKeys, what: "example key", document, itemPointer)
            let error = object["error"]?.stringValue
            if object["error"] != nil && error == nil {
                report(document, itemPointer + "/error", "`error` must be an error code")
            }
            if object["response"] == nil && object["error"] == nil {
                report(document, itemPointer, "an example needs `response` or `error`")
            }
            let requestBody = object["request-body"]
            if requestBody != nil && !shape.hasBodyKey {
                report(document, itemPointer + "/request-body", "`request-body` is only for routes with `body`")
            }
            // A request body the route refuses never reaches the upstream, so such an example
            // needs no upstream answer.
            let upstream = object["upstream"]
            if upstream == nil && !(requestBody != nil && error != nil) {
                report(
                    document, itemPointer,
                    "an example needs `upstream` (what the upstream sends) and `response` or `error`")
            }
            if let upstream { checkFanOutBodies(upstream, shape: shape, document, itemPointer + "/upstream") }
            let sends = object["sends"]
            if let sends {
                if requestBody == nil {
                    report(document, itemPointer + "/sends", "`sends` needs a `request-body` to send")
                } else if shape.body?.encoding == .form, sends.stringValue == nil {
                    report(
                        document, itemPointer + "/sends",
                        "with `encoding: form`, `sends` is the encoded text, like \"a=1&b=x%20y\"")
                }
            }
            let followUps = compileFollowUps(object["follow-ups"], shape: shape, document, itemPointer + "/follow-ups")
            let parameters = compileParameters(object["params"], document, itemPointer + "/params")
            let dropped = object["dropped"].flatMap { value -> Int? in
                if case .number(let number) = value { return number.intValue }
                return nil
            }
            if object["dropped"] != nil && dropped == nil {
                report(document, itemPointer + "/dropped", "`dropped` must be a whole number")
            }
            var example = RouteExample(
                upstream: upstream ?? .null, response: object["response"], parameters: parameters,
                dropped: dropped, error: error, requestBody: requestBody, sends: sends,
                followUps: followUps, location: document.location(of: itemPointer))
            if let query = object["query"] {
                (example.queryOrder, example.clientQuery) = compileQuery(
                    query, shape: shape, document, itemPointer + "/query")
            }
            examples.append(example)
        }
        return problems.count == before ? examples : nil
    }

    /// On a `fetch:` route, `upstream` is an object of bodies by fetch name: every required
    /// fetch is there, and nothing else.
    private mutating func checkFanOutBodies(
        _ upstream: JSON, shape: ExampleShape, _ document: SourceDocument, _ pointer: String
    ) {
        guard shape.isFanOut, let fetches = shape.fetches else { return }
        let names = fetches.map(\.name)
        guard case .object(let bodies) = upstream else {
            report(
                document, pointer,
                "on a `fetch:` route, `upstream` maps fetch names (\(names.joined(separator: ", "))) to their bodies")
            return
        }
        for member in bodies.members where !names.contains(member.key) {
            report(
                document, pointer + "/" + JSONPointer.escape(member.key),
                "unknown fetch '\(member.key)' (the route fetches \(names.joined(separator: ", ")))")
        }
        for fetch in fetches where !fetch.optional && bodies[fetch.name] == nil {
            report(
                document, pointer,
                "no body for the required fetch '\(fetch.name)' (only an optional fetch may be left out, as failed)")
        }
    }

    /// `follow-ups: { /users/u1.json: {...} }`: follow-up bodies by upstream path.
    private mutating func compileFollowUps(
        _ value: JSON?, shape: ExampleShape, _ document: SourceDocument, _ pointer: String
    ) -> [String: JSON] {
        guard let value else { return [:] }
        if shape.transformCompiled && !shape.hasStages {
            report(document, pointer, "`follow-ups` are for routes whose transform has an `expand`")
            return [:]
        }
        guard case .object(let bodies) = value else {
            report(document, pointer, "`follow-ups` must map upstream paths (like /users/u1.json) to bodies")
            return [:]
        }
        var followUps: [String: JSON] = [:]
        for member in bodies.members {
            guard member.key.hasPrefix("/") else {
                report(
                    document, pointer + "/" + JSONPointer.escape(member.key),
                    "a follow-up is named by its upstream path, starting with '/' (found '\(member.key)')")
                continue
            }
            followUps[member.key] = member.value
        }
        return followUps
    }

    /// `query: { orderBy: '"age"', limitToFirst: 2 }`: the request's Firebase query, each value
    /// as it would be in the URL (JSON text), checked as the server checks it; on a route with
    /// `client-query`, also its parameters (`fields: name`, `age[gte]: 18`), kept as a raw query
    /// the example's run makes its view with.
    private mutating func compileQuery(
        _ value: JSON, shape: ExampleShape, _ document: SourceDocument, _ pointer: String
    )
        -> (FirebaseQuery.Order, String?)
    {
        guard shape.firebaseQuery != .off || shape.clientQuery else {
            report(document, pointer, "`query` is for routes with `firebase-query: true` or `client-query`")
            return (.key, nil)
        }
        guard case .object(let pairs) = value else {
            report(
                document, pointer, "`query` must map Firebase query parameters to their values, like orderBy: '\"age\"'"
            )
            return (.key, nil)
        }
        var raw: [String] = []
        var client: [String] = []
        for pair in pairs.members {
            let text: String
            switch pair.value {
            case .string(let string): text = string
            case .number(let number): text = number.text
            case .bool(let flag): text = flag ? "true" : "false"
            default:
                report(
                    document, pointer + "/" + JSONPointer.escape(pair.key),
                    "a query value is its text in the URL, like '\"age\"' or 2")
                continue
            }
            if shape.clientQuery, !FirebaseQuery.names.contains(pair.key) {
                client.append(PercentEncoding.encode(pair.key) + "=" + PercentEncoding.encode(text))
                continue
            }
            guard FirebaseQuery.names.contains(pair.key) else {
                report(
                    document, pointer + "/" + JSONPointer.escape(pair.key),
                    "'\(pair.key)' is not a Firebase query parameter (\(FirebaseQuery.names.joined(separator: ", ")))")
                continue
            }
            raw.append(PercentEncoding.encode(pair.key) + "=" + PercentEncoding.encode(text))
        }
        do {
            let query = try FirebaseQuery.parse(Substring(raw.joined(separator: "&")))
            if shape.firebaseQuery == .forwardAndOrder, query.orderBy == .priority {
                report(
                    document, pointer + "/orderBy",
                    "this route refuses orderBy \"$priority\": it orders records by the query, and answers carry no priorities"
                )
            }
            return (query.order, client.isEmpty ? nil : client.joined(separator: "&"))
        } catch {
            if case .parameter(let name, let reason) = error {
                let at = pairs[name] == nil ? pointer : pointer + "/" + JSONPointer.escape(name)
                report(document, at, "'\(name)' \(reason)")
            }
            return (.key, nil)
        }
    }

    private mutating func compileParameters(_ value: JSON?, _ document: SourceDocument, _ pointer: String) -> [String:
        String]
    {
        guard let value else { return [:] }
        guard case .object(let pairs) = value else {
            report(document, pointer, "`params` must map capture names to values")
            return [:]
        }
        var parameters: [String: String] = [:]
        for pair in pairs.members {
            switch pair.value {
            case .string(let text): parameters[pair.key] = text
            case .number(let number): parameters[pair.key] = number.text
            default:
                report(document, pointer + "/" + JSONPointer.escape(pair.key), "a parameter value must be a string")
            }
        }
        return parameters
    }
}
