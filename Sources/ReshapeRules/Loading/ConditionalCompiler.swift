import ReshapeJSON

extension RuleSetBuilder {
    static let conditionalHeaders: Set<String> = ["if-match", "x-firebase-etag"]

    /// `conditional: true`: a GET asks Firebase for its ETag and a PUT, PATCH or DELETE passes
    /// a client's `If-Match` on (docs/rules.md, "Conditional reads and writes"). The tag names
    /// one upstream resource, so the route must address exactly one: refused on a POST (Firebase
    /// picks the new child's name, so no tag was ever made for it), on a `fetch:` list or an
    /// `expand` (an answer of many resources), on a live route (a stream carries no ETag) and
    /// with `firebase-query` (Firebase's ETag is the location's, not the filtered answer's).
    /// False when absent, `false`, or refused (reported). The headers it sends are its own:
    /// forwarding them too would send a client's `If-Match` to Firebase unread.
    mutating func compileConditional(
        _ object: JSONObject, method: String, hasStages: Bool, _ document: SourceDocument, _ pointer: String
    ) -> Bool {
        guard let value = object["conditional"] else { return false }
        let at = pointer + "/conditional"
        guard case .bool(let flag) = value else {
            report(document, at, "`conditional` must be true or false")
            return false
        }
        guard flag else { return false }
        let before = problems.count
        if method == "POST" {
            report(
                document, at,
                "`conditional` is for GET, PUT, PATCH and DELETE routes; a POST creates a child Firebase names, which no tag was made for"
            )
        }
        if object["fetch"] != nil {
            report(
                document, at, "`conditional` needs one upstream request (`upstream` and `path`), not a `fetch:` list")
        }
        if hasStages {
            report(document, at, "`conditional` cannot be used with `expand`: the answer is made of many resources")
        }
        if let live = object["live"], live != .bool(false) {
            report(document, at, "`conditional` cannot be used on a live route: a stream carries no ETag")
        }
        if case .array(let names)? = object["forward-headers"] {
            for (index, name) in names.enumerated() {
                guard let text = name.stringValue, Self.conditionalHeaders.contains(text.lowercased()) else { continue }
                report(
                    document, JSONPointer.appending(index: index, to: pointer + "/forward-headers"),
                    "'\(text)' is sent by `conditional: true` itself (from the client's If-Match); do not forward it")
            }
        }
        if object["firebase-query"] == .bool(true) {
            report(
                document, at,
                "`conditional` cannot be used with `firebase-query`: Firebase's ETag is the location's, not the query's"
            )
        }
        return problems.count == before
    }
}

/// The conditional fingerprint of every `conditional: true` route: what a tag's route part is
/// made from, beside the upstream resource. Routes on the same client path template (capture
/// names aside) share one, made from each one's text and its upstream's: a tag made by
/// `GET /counters/{id}` is accepted by `PUT /counters/{id}` until either route's rules change,
/// and a reload that changes only other routes, types or files changes nothing.
enum ConditionalFingerprint {
    /// One route's part: its own text and its upstreams' (as `RuleLoader` has them).
    static func of(routeText: String, upstreams: [(name: String, text: String)]) -> String {
        RuleDigest.of([("route", routeText)] + upstreams.map { ($0.name, $0.text) })
    }

    /// Replaces each conditional route's own part by its template group's.
    static func combine(_ routes: inout [Route]) {
        var groups: [String: [String]] = [:]
        for route in routes where route.conditional {
            groups[templateKey(route.path), default: []].append(route.method + " " + route.conditionalFingerprint)
        }
        for index in routes.indices where routes[index].conditional {
            let members = groups[templateKey(routes[index].path)] ?? []
            routes[index].conditionalFingerprint = RuleDigest.of(members.sorted().map { ("route", $0) })
        }
    }

    /// The template with its capture names left out: `/counters/{}`.
    static func templateKey(_ template: PathTemplate) -> String {
        template.segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter: "{}"
            }
        }.joined(separator: "/")
    }
}
