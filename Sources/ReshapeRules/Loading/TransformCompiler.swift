import ReshapeJSON

// A route's `transform`: steps, cut at each top-level `expand` into the pipeline before it
// and one stage per `expand` with the steps after it. Every faulty step is reported.

extension RuleSetBuilder {
    private static let expandKeys: Set<String> = [
        "key", "fetch", "as", "concurrency", "transform", "missing", "max-fetches",
    ]

    /// The route's transform; nil when it has a problem (each one reported).
    mutating func compileTransform(_ steps: JSON, _ scope: RouteScope) -> (Pipeline, [ExpandStage])? {
        let pointer = scope.pointer + "/transform"
        if scope.types == nil && Self.mentionsTypes(steps) { return (Pipeline(steps: []), []) }
        guard case .array(let elements) = steps else {
            report(scope.document, pointer, "expected a list of transform steps, found \(steps.kindName)")
            return nil
        }
        let before = problems.count
        let context = scope.operationContext
        var first: [any TransformOperation] = []
        var firstWritten: [JSON] = []
        var stages: [(expand: ExpandRule?, then: [any TransformOperation], written: [JSON])] = []
        for (index, element) in elements.enumerated() {
            let stepPointer = JSONPointer.appending(index: index, to: pointer)
            if case .object(let object) = element, object.count == 1, let member = object.members.first,
                member.key == "expand"
            {
                stages.append((compileExpand(member.value, scope, at: stepPointer + "/expand"), [], []))
                continue
            }
            do {
                let step = try OperationCatalog.compile(step: element, context: context)
                if stages.isEmpty {
                    first.append(step)
                    firstWritten.append(element)
                } else {
                    stages[stages.count - 1].then.append(step)
                    stages[stages.count - 1].written.append(element)
                }
            } catch {
                report(scope.document, stepPointer + error.pointer, error.message)
            }
        }
        guard problems.count == before else { return nil }
        return (
            Pipeline(steps: first, written: firstWritten),
            stages.compactMap { stage in
                stage.expand.map { ExpandStage(expand: $0, then: Pipeline(steps: stage.then, written: stage.written)) }
            }
        )
    }

    /// Steps where `expand` is not allowed (a body's or an expand's transform); nil on a problem.
    mutating func compileSteps(_ steps: JSON, _ scope: RouteScope, at pointer: String) -> Pipeline? {
        if scope.types == nil && Self.mentionsTypes(steps) { return nil }
        // A body or a follow-up is not the query's answer: `order: query` has nothing to order by.
        var context = scope.operationContext
        context.firebaseQuery = false
        do {
            return try OperationCatalog.compile(steps: steps, context: context)
        } catch {
            let all = OperationCatalog.problems(in: steps, context: context)
            for problem in all.isEmpty ? [error] : all {
                report(scope.document, pointer + problem.pointer, problem.message)
            }
            return nil
        }
    }

    /// `expand: { key, fetch: { upstream, path }, as, concurrency, transform, missing, max-fetches }`.
    private mutating func compileExpand(_ value: JSON, _ scope: RouteScope, at pointer: String) -> ExpandRule? {
        let document = scope.document
        guard case .object(let object) = value else {
            report(document, pointer, "expand must be a mapping with `key`, `fetch` and `as`")
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: object, allowed: Self.expandKeys, what: "expand key", document, pointer)
        let key = requiredString("key", in: object, document, pointer, label: "expand")
        let member = requiredString("as", in: object, document, pointer, label: "expand")

        var fetch: FetchRule?
        if let fetchValue = object["fetch"] {
            let fetchPointer = pointer + "/fetch"
            if case .object(let rule) = fetchValue {
                _ = reportUnknownKeys(
                    in: rule, allowed: ["upstream", "path"], what: "expand fetch key", document, fetchPointer)
                let upstream = checkUpstream(
                    rule["upstream"], scope, at: fetchPointer + "/upstream", label: "expand's fetch")
                let path = compileUpstreamPath(
                    rule["path"], scope, at: fetchPointer + "/path", label: "expand's fetch", extra: ["value"])
                if let path, !path.parameterNames.contains("value") {
                    report(
                        document, fetchPointer + "/path",
                        "expand's fetch path must use {value} (the element's `key` member)")
                } else if path != nil, scope.captures.contains("value") {
                    report(
                        document, fetchPointer + "/path",
                        "the request captures {value}, which expand's path uses for each element's key; rename the capture"
                    )
                }
                if let upstream, let path { fetch = FetchRule(name: member ?? "", upstream: upstream, path: path) }
            } else {
                report(document, fetchPointer, "expand's `fetch` must be a mapping with `upstream` and `path`")
            }
        } else {
            report(document, pointer, "expand is missing `fetch` ({ upstream, path } with {value})")
        }

        func bounded(_ name: String, _ range: ClosedRange<Int>, default fallback: Int) -> Int {
            guard let value = object[name] else { return fallback }
            if case .number(let number) = value, let count = number.intValue, range.contains(count) { return count }
            report(
                document, pointer + "/" + name,
                "`\(name)` must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            return fallback
        }
        let concurrency = bounded("concurrency", 1...64, default: ExpandRule.defaultConcurrency)
        let maxFetches = bounded("max-fetches", 1...10_000, default: ExpandRule.defaultMaxFetches)

        var missing = MissingPolicy.null
        switch object["missing"] {
        case nil, .null?: break  // YAML `missing: null` reads as null
        case .string(let text)? where MissingPolicy(rawValue: text) != nil: missing = MissingPolicy(rawValue: text)!
        default: report(document, pointer + "/missing", "`missing` must be \"null\", drop or fail")
        }

        var transform = Pipeline(steps: [])
        if let steps = object["transform"], let compiled = compileSteps(steps, scope, at: pointer + "/transform") {
            transform = compiled
        }
        guard problems.count == before, let key, let member, let fetch else { return nil }
        return ExpandRule(
            key: key, fetch: fetch, member: member, concurrency: concurrency, transform: transform,
            missing: missing, maxFetches: maxFetches)
    }
}
