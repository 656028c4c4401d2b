import ReshapeJSON

/// Runs a route's `examples` offline, the server's way (`OfflineRun`: the client body
/// prepared, the fetched bodies through `RouteRun`, follow-ups answered by path), and compares
/// the result with the expected response by meaning and by member order.
package enum ExampleRunner {
    package struct Outcome: Sendable {
        package var route: String
        package var index: Int
        package var location: SourceLocation
        /// Nil when the example passed.
        package var failure: String?
    }

    package static func run(_ ruleSet: RuleSet) -> [Outcome] {
        var outcomes: [Outcome] = []
        for route in ruleSet.routes {
            for (index, example) in route.examples.enumerated() {
                outcomes.append(
                    Outcome(
                        route: route.name, index: index, location: example.location,
                        failure: check(example, route: route)))
            }
        }
        return outcomes
    }

    /// Runs one example the server's way: the client body prepared, the fetched bodies
    /// through `RouteRun`, follow-ups answered by path. Nil when it passes.
    static func check(_ example: RouteExample, route: Route) -> String? {
        if let requestBody = example.requestBody {
            switch Result(catching: { () throws(PipelineError) in
                try OfflineRun.prepareBody(route, requestBody, parameters: example.parameters)
            }) {
            case .failure(let error):
                if let expected = example.error {
                    return error.code == expected
                        ? nil : "expected error '\(expected)', got \(error) (from the request body)"
                }
                return "the request body was refused: \(error)"
            case .success(let prepared):
                if let sends = example.sends,
                    let difference = sendsDifference(sends, prepared.bytes, route.body?.encoding ?? .json)
                {
                    return difference
                }
            }
        }
        let fetched: OfflineRun.Fetched
        if route.isSingleFetch {
            let body = OfflineRun.tape(example.upstream)
            if let problem = differential(route.pipeline, body, example) { return problem }
            fetched = .single(body)
        } else {
            var bodies: [String: JSON] = [:]
            for member in example.upstream.objectValue?.members ?? [] { bodies[member.key] = member.value }
            fetched = .fanOut(bodies)
        }
        let followUps = example.followUps.mapValues(OfflineRun.tape)
        var result = Result { () throws(PipelineError) in
            try OfflineRun.respond(
                route, fetched: fetched, followUps: followUps, parameters: example.parameters,
                queryOrder: example.queryOrder)
        }
        // The example's client query: its response is the view the server would send.
        if let query = example.clientQuery, case .success(let output) = result {
            do {
                if let view = try ClientView.view(of: output.value, rawQuery: query, route: route) {
                    result = .success(PipelineOutput(value: view, dropped: output.dropped))
                }
            } catch {
                if example.error == error.code.rawValue { return nil }
                return "the query was refused (\(error.code.rawValue)): '\(error.name)' \(error.detail)"
            }
        }
        return compare(result, example)
    }

    /// The steps before the first `expand`, on the tape (the server's way) and on the tree:
    /// a difference is Reshape's bug and must not hide behind a passing example.
    static func differential(_ pipeline: Pipeline, _ body: JSONTape, _ example: RouteExample) -> String? {
        let staged = Result { () throws(PipelineError) in
            try pipeline.run(body, parameters: example.parameters, queryOrder: example.queryOrder)
        }
        let tree = Result { () throws(PipelineError) in
            try pipeline.run(example.upstream, parameters: example.parameters, queryOrder: example.queryOrder)
        }
        if !sameOutcome(staged, tree) {
            return "internal error: the pipeline answers differently on the tape and on the tree; please report it"
        }
        return nil
    }

    /// The run's result against what the example expects.
    static func compare(_ result: Result<PipelineOutput, PipelineError>, _ example: RouteExample) -> String? {
        let output: PipelineOutput
        switch result {
        case .success(let value):
            output = value
        case .failure(let error):
            if let expected = example.error {
                return error.code == expected ? nil : "expected error '\(expected)', got \(error)"
            }
            return "pipeline failed: \(error)"
        }
        if let expected = example.error { return "expected error '\(expected)', got a response" }
        if let dropped = example.dropped, dropped != output.dropped.count {
            return
                "expected \(dropped) dropped, got \(output.dropped.count) (\(output.dropped.map { "\($0.pointer): \($0.reason)" }.joined(separator: "; ")))"
        }
        guard let expected = example.response else { return nil }
        return difference("response", expected, output.value)
    }

    /// `sends` against the encoded upstream body: by meaning and member order for JSON, as
    /// text for a form.
    static func sendsDifference(_ expected: JSON, _ bytes: [UInt8], _ encoding: BodyEncoding) -> String? {
        switch encoding {
        case .form:
            let text = String(decoding: bytes, as: UTF8.self)
            return expected.stringValue == text
                ? nil : "sends differs: expected \(expected.serializedString()), got \"\(text)\""
        case .json:
            guard let sent = try? JSON.parse(bytes) else { return "internal error: the encoded body is not JSON" }
            return difference("sends", expected, sent)
        }
    }

    /// Where `actual` first differs from `expected`, said for a person; nil when they agree.
    static func difference(_ what: String, _ expected: JSON, _ actual: JSON) -> String? {
        guard let pointer = firstDifference(expected, actual, at: "") else { return nil }
        let path = JSONPointer(pointer) ?? JSONPointer()
        let got = actual[path]?.serializedString() ?? "nothing"
        let want = expected[path]?.serializedString() ?? "nothing"
        if got == want, !path.tokens.isEmpty {
            // Same value, wrong place: the members of the object holding it are out of order.
            let parent = JSONPointer(tokens: Array(path.tokens.dropLast()))
            let order = { (value: JSON) in "[" + (value[parent]?.objectValue?.keys.joined(separator: ", ") ?? "") + "]"
            }
            return
                "\(what) has its members in another order at \(parent.tokens.isEmpty ? "(root)" : parent.description): "
                + "expected \(order(expected)), got \(order(actual))"
        }
        return "\(what) differs at \(pointer.isEmpty ? "(root)" : pointer): expected \(want), got \(got)"
    }

    /// The first place where `actual` differs from `expected` in meaning or in member order.
    static func firstDifference(_ expected: JSON, _ actual: JSON, at pointer: String) -> String? {
        switch (expected, actual) {
        case (.object(let a), .object(let b)):
            for (index, member) in a.members.enumerated() {
                let child = JSONPointer.appending(key: member.key, to: pointer)
                guard let other = b[member.key] else { return child }
                if let difference = firstDifference(member.value, other, at: child) { return difference }
                if index < b.count, b.members[index].key != member.key { return child }
            }
            if let extra = b.members.first(where: { a[$0.key] == nil }) {
                return JSONPointer.appending(key: extra.key, to: pointer)
            }
            return nil
        case (.array(let a), .array(let b)):
            for index in 0..<max(a.count, b.count) {
                let child = JSONPointer.appending(index: index, to: pointer)
                guard index < a.count, index < b.count else { return child }
                if let difference = firstDifference(a[index], b[index], at: child) { return difference }
            }
            return nil
        default:
            return expected == actual ? nil : pointer
        }
    }

    private static func sameOutcome(
        _ a: Result<PipelineOutput, PipelineError>, _ b: Result<PipelineOutput, PipelineError>
    ) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): return x.serialized() == y.serialized() && x.dropped == y.dropped
        case (.failure(let x), .failure(let y)): return x == y
        default: return false
        }
    }
}
