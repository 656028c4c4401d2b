import ReshapeJSON

extension RuleSetBuilder {
    /// `firebase-query: true`: the client's Firebase query parameters are checked and
    /// forwarded. Only on a GET route with one fetch (`upstream`/`path`) that is not live, and
    /// without listing those parameters in `forward-query` too. False when absent, `false`, or
    /// wrong (reported); true when written `true`, even on a route it is refused on, so the
    /// route's `order: query` steps are not reported a second time.
    mutating func compileFirebaseQuery(
        _ object: JSONObject, method: String, _ document: SourceDocument, _ pointer: String
    )
        -> Bool
    {
        guard let value = object["firebase-query"] else { return false }
        let at = pointer + "/firebase-query"
        guard case .bool(let flag) = value else {
            report(document, at, "`firebase-query` must be true or false")
            return false
        }
        guard flag else { return false }
        if !method.isEmpty, method != "GET" {
            report(document, at, "`firebase-query` is for GET routes; a \(method) does not read a query")
        }
        if object["fetch"] != nil {
            report(
                document, at,
                "`firebase-query` needs one upstream request (`upstream` and `path`), not a `fetch:` list")
        }
        if let live = object["live"], live != .bool(false) {
            report(
                document, at,
                "`firebase-query` cannot be used on a live route: Firebase streams a location, not a query")
        }
        if case .array(let names)? = object["forward-query"] {
            for (index, name) in names.enumerated() {
                guard let text = name.stringValue, FirebaseQuery.names.contains(text) else { continue }
                report(
                    document, JSONPointer.appending(index: index, to: pointer + "/forward-query"),
                    "'\(text)' is forwarded by `firebase-query: true`, after checking it; do not list it in `forward-query`"
                )
            }
        }
        return true
    }

    /// How a compiled route uses its Firebase query: forwarded only, or also ordering records.
    static func firebaseQueryUse(_ enabled: Bool, pipeline: Pipeline, stages: [ExpandStage]) -> FirebaseQuery.Use {
        guard enabled else { return .off }
        let pipelines = [pipeline] + stages.map(\.then)
        return pipelines.contains(where: ordersByQuery) ? .forwardAndOrder : .forward
    }

    /// Whether a step of `pipeline` (nested ones included) is `keyed-to-array` with `order: query`.
    private static func ordersByQuery(_ pipeline: Pipeline) -> Bool {
        pipeline.steps.contains { step in
            switch step {
            case let step as KeyedToArrayOperation: step.order == .query
            case let step as EachOperation: ordersByQuery(step.body)
            case let step as AtOperation: ordersByQuery(step.body)
            default: false
            }
        }
    }
}
