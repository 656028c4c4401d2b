import ReshapeJSON

/// A route's transform over what its fetches returned, with `expand`'s follow-up fetches
/// handed out as requests and their bodies taken back. Pure: the proxy fetches for real, the
/// offline runners answer from fixtures, and both get the same answer from the same steps.
package struct RouteRun: Sendable {
    package enum Progress: Sendable {
        /// Fetch `expand.fetch` once per value (distinct, in first-seen order; `{value}` is the
        /// capture) and call `resume` with every outcome.
        case followUps(ExpandRule, values: [String])
        case done(PipelineOutput)
    }

    /// What one follow-up fetch gave.
    package enum FollowUp: Sendable {
        case body(JSONTape)
        /// The upstream answered 404 (a `null` body counts as missing too).
        case notFound
    }

    private let route: Route
    private let parameters: [String: String]
    /// The request's Firebase query order, for `keyed-to-array`'s `order: query`.
    private let queryOrder: FirebaseQuery.Order
    private var stageIndex = 0
    private var value: JSON = .null
    private var dropped: [DroppedElement] = []

    package init(route: Route, parameters: [String: String], queryOrder: FirebaseQuery.Order = .key) {
        self.route = route
        self.parameters = parameters
        self.queryOrder = queryOrder
    }

    /// The transform's input on a `fetch:` route: an object with a member per fetch, in the
    /// order written; a failed optional fetch is `null`.
    package static func fanOutInput(_ bodies: [(name: String, body: JSON?)]) -> JSON {
        .object(JSONObject(bodies.map { JSONMember(key: $0.name, value: $0.body ?? .null) }))
    }

    /// Runs the steps up to the first `expand` on a single fetch's body, on its tape.
    /// `observe`, when given, is called after every step (`StepTrace`), expand merges included.
    package mutating func start(_ document: JSONTape, observe: StepObserver? = nil) throws(PipelineError) -> Progress {
        try start(from: TapeValue(tape: document), observe: observe)
    }

    /// Runs the steps up to the first `expand` on a built input (a `fetch:` route's object).
    package mutating func start(_ input: JSON, observe: StepObserver? = nil) throws(PipelineError) -> Progress {
        try start(from: TapeValue(input), observe: observe)
    }

    private mutating func start(from input: TapeValue, observe: StepObserver?) throws(PipelineError) -> Progress {
        let output = try route.pipeline.run(
            from: input, parameters: parameters, queryOrder: queryOrder, observe: observe)
        if route.stages.isEmpty { return .done(output) }
        value = output.value
        dropped = output.dropped
        return try nextStage(observe)
    }

    /// Merges the current stage's follow-ups (one outcome per value it asked for; a value
    /// without one counts as not found), runs the steps after it, and goes on.
    package mutating func resume(_ outcomes: [String: FollowUp], observe: StepObserver? = nil) throws(PipelineError)
        -> Progress
    {
        let stage = route.stages[stageIndex]
        let expand = stage.expand
        var fetched: [String: JSON] = [:]
        for (key, outcome) in outcomes {
            guard case .body(let tape) = outcome else { continue }
            // A follow-up whose transform fails is missing, like one that is not there.
            if let output = try? expand.transform.run(tape, parameters: parameters), output.value != .null {
                fetched[key] = output.value
            }
        }
        guard case .array(let elements) = value else { throw Self.notAnArray(value, expand) }
        let droppedBefore = dropped.count
        var kept: [JSON] = []
        kept.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(var object) = element else {
                throw PipelineError(
                    code: "not-an-object",
                    message: "expand adds '\(expand.member)' to objects, found \(element.kindName)",
                    pointer: JSONPointer.appending(index: index, to: ""))
            }
            if let key = Self.followUpValue(object[expand.key]), let result = fetched[key] {
                object[expand.member] = result
            } else {
                switch expand.missing {
                case .null:
                    object[expand.member] = .null
                case .drop:
                    dropped.append(
                        DroppedElement(
                            pointer: JSONPointer.appending(index: index, to: ""), type: "expand:" + expand.member,
                            reason: "its '\(expand.member)' follow-up is missing"))
                    continue
                case .fail:
                    throw PipelineError(
                        code: "follow-up-missing",
                        message: "the '\(expand.member)' follow-up of this element is missing",
                        pointer: JSONPointer.appending(index: index, to: ""))
                }
            }
            kept.append(.object(object))
        }
        if let observe {
            observe(
                StepTrace(
                    name: "expand", argument: nil, operation: nil, value: .array(kept),
                    dropped: Array(dropped[droppedBefore...])))
        }
        let output = try stage.then.run(
            JSON.array(kept), parameters: parameters, queryOrder: queryOrder, observe: observe)
        value = output.value
        dropped += output.dropped
        stageIndex += 1
        return try nextStage(observe)
    }

    /// The next `expand`'s follow-ups, or the result when none is left.
    private mutating func nextStage(_ observe: StepObserver?) throws(PipelineError) -> Progress {
        guard stageIndex < route.stages.count else {
            return .done(PipelineOutput(value: value, dropped: dropped))
        }
        let expand = route.stages[stageIndex].expand
        guard case .array(let elements) = value else { throw Self.notAnArray(value, expand) }
        var seen: Set<String> = []
        var values: [String] = []
        for element in elements {
            guard let key = Self.followUpValue(element.objectValue?[expand.key]), seen.insert(key).inserted else {
                continue
            }
            values.append(key)
        }
        if values.count > expand.maxFetches {
            throw PipelineError(
                code: "too-many-fetches",
                message:
                    "expand '\(expand.member)' needs \(values.count) follow-up fetches; max-fetches is \(expand.maxFetches)"
            )
        }
        if values.isEmpty { return try resume([:], observe: observe) }
        return .followUps(expand, values: values)
    }

    /// The `{value}` an element's key gives: a string, or a number's text; nil (missing) otherwise.
    static func followUpValue(_ member: JSON?) -> String? {
        switch member {
        case .string(let text): return text.isEmpty ? nil : text
        case .number(let number): return number.text
        default: return nil
        }
    }

    private static func notAnArray(_ value: JSON, _ expand: ExpandRule) -> PipelineError {
        PipelineError(
            code: "not-an-array", message: "expand '\(expand.member)' needs an array, found \(value.kindName)",
            pointer: "")
    }
}
