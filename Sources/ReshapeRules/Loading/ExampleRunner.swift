import ReshapeJSON

/// Runs a route's `examples` offline: the fixture's upstream body through the pipeline,
/// compared with the expected response by meaning and by member order.
public enum ExampleRunner {
    public struct Outcome: Sendable {
        public var route: String
        public var index: Int
        public var location: SourceLocation
        /// Nil when the example passed.
        public var failure: String?
    }

    public static func run(_ ruleSet: RuleSet) -> [Outcome] {
        var outcomes: [Outcome] = []
        for route in ruleSet.routes {
            for (index, example) in route.examples.enumerated() {
                outcomes.append(Outcome(route: route.name, index: index, location: example.location,
                                        failure: check(example, pipeline: route.pipeline)))
            }
        }
        return outcomes
    }

    static func check(_ example: RouteExample, pipeline: Pipeline) -> String? {
        let body: JSONTape
        do {
            body = try JSONTape.parse(example.upstream.serialized())
        } catch {
            return "internal error: the example's upstream did not parse back: \(error)"
        }
        // The server's way: the body as a tape, values built only where steps change them.
        let staged = Result { () throws(PipelineError) in try pipeline.run(body, parameters: example.parameters) }
        let tree = Result { () throws(PipelineError) in try pipeline.run(example.upstream, parameters: example.parameters) }
        if !sameOutcome(staged, tree) {
            // A difference is Reshape's bug; it must not hide behind a passing example.
            return "internal error: the pipeline answers differently on the tape and on the tree; please report it"
        }
        let output: PipelineOutput
        switch staged {
        case .success(let result):
            output = result
        case .failure(let error):
            if let expected = example.error {
                return error.code == expected ? nil : "expected error '\(expected)', got \(error)"
            }
            return "pipeline failed: \(error)"
        }
        if let expected = example.error { return "expected error '\(expected)', got a response" }
        if let dropped = example.dropped, dropped != output.dropped.count {
            return "expected \(dropped) dropped, got \(output.dropped.count) (\(output.dropped.map { "\($0.pointer): \($0.reason)" }.joined(separator: "; ")))"
        }
        guard let expected = example.response else { return nil }
        if let pointer = firstDifference(expected, output.value, at: "") {
            let got = (output.value[JSONPointer(pointer) ?? JSONPointer()]?.serializedString()) ?? "nothing"
            let want = (expected[JSONPointer(pointer) ?? JSONPointer()]?.serializedString()) ?? "nothing"
            return "response differs at \(pointer.isEmpty ? "(root)" : pointer): expected \(want), got \(got)"
        }
        return nil
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
            if let extra = b.members.first(where: { a[$0.key] == nil }) { return JSONPointer.appending(key: extra.key, to: pointer) }
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

    private static func sameOutcome(_ a: Result<PipelineOutput, PipelineError>, _ b: Result<PipelineOutput, PipelineError>) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): return x.serialized() == y.serialized() && x.dropped == y.dropped
        case (.failure(let x), .failure(let y)): return x == y
        default: return false
        }
    }
}
