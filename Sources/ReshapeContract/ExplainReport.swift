import ReshapeJSON
import ReshapeRules

/// `reshape explain`'s two outputs: lines for a person, a JSON array of steps for a program.
package enum ExplainReport {
    /// ```
    /// 1. keyed-to-array {"key": "objectId", "order": "key"}
    ///    -> array(7) [{"objectId": "-NqK…", …}, …]
    ///    dropped /2 (User): /name: minLength: …
    /// ```
    package static func text(
        input: JSON, steps: [StepExplanation], failure: (step: String, error: PipelineError)? = nil,
        width: Int = 100
    ) -> String {
        var out = "input  " + ValueSummary.line(input, width: width - 7) + "\n"
        for step in steps {
            out += "\(step.number). \(step.name)"
            if let argument = step.argument { out += " " + ValueSummary.compact(argument, width: width) }
            out += "\n   -> " + ValueSummary.line(step.value, width: width - 6) + "\n"
            for coercion in step.coerced {
                out +=
                    "   coerced \(shown(coercion.pointer)): \(coercion.from.serializedString()) -> \(coercion.to.serializedString())\n"
            }
            for dropped in step.dropped {
                out += "   dropped \(shown(dropped.pointer)) (\(dropped.type)): \(dropped.reason)\n"
            }
        }
        if let failure {
            out += "\(steps.count + 1). \(failure.step)\n   failed: \(failure.error)\n"
            for violation in failure.error.errors {
                out += "   \(shown(violation.pointer)): \(violation.keyword): \(violation.reason)\n"
            }
        } else {
            let dropped = steps.reduce(0) { $0 + $1.dropped.count }
            out +=
                "result " + ValueSummary.kind(steps.last?.value ?? input) + (dropped > 0 ? ", \(dropped) dropped" : "")
                + "\n"
        }
        return out
    }

    /// `[{"step": 1, "operation": ..., "argument": ..., "value": ..., "dropped": [...], "coerced": [...]}, ...]`;
    /// a failing step last, with `error` instead of `value`.
    package static func json(steps: [StepExplanation], failure: (step: String, error: PipelineError)? = nil) -> JSON {
        var elements: [JSON] = steps.map { step in
            .object(
                JSONObject([
                    JSONMember(key: "step", value: .number(JSONNumber(step.number))),
                    JSONMember(key: "operation", value: .string(step.name)),
                    JSONMember(key: "argument", value: step.argument ?? .null),
                    JSONMember(key: "kind", value: .string(ValueSummary.kind(step.value))),
                    JSONMember(key: "value", value: step.value),
                    JSONMember(
                        key: "dropped",
                        value: .array(
                            step.dropped.map { dropped in
                                .object(
                                    JSONObject([
                                        "pointer": .string(dropped.pointer), "type": .string(dropped.type),
                                        "reason": .string(dropped.reason),
                                    ]))
                            })),
                    JSONMember(
                        key: "coerced",
                        value: .array(
                            step.coerced.map { coercion in
                                .object(
                                    JSONObject([
                                        "pointer": .string(coercion.pointer), "from": coercion.from, "to": coercion.to,
                                    ]))
                            })),
                ]))
        }
        if let failure {
            let error = failure.error
            elements.append(
                .object(
                    JSONObject([
                        JSONMember(key: "step", value: .number(JSONNumber(steps.count + 1))),
                        JSONMember(key: "operation", value: .string(failure.step)),
                        JSONMember(
                            key: "error",
                            value: .object(
                                JSONObject([
                                    JSONMember(key: "code", value: .string(error.code)),
                                    JSONMember(key: "message", value: .string(error.message)),
                                    JSONMember(key: "pointer", value: error.pointer.map(JSON.string) ?? .null),
                                    JSONMember(
                                        key: "errors",
                                        value: .array(
                                            error.errors.map { violation in
                                                .object(
                                                    JSONObject([
                                                        "pointer": .string(violation.pointer),
                                                        "keyword": .string(violation.keyword),
                                                        "reason": .string(violation.reason),
                                                    ]))
                                            })),
                                ]))),
                    ])))
        }
        return .array(elements)
    }

    /// The name of each step a route runs, in order, for naming the one that failed.
    package static func plannedSteps(_ route: Route) -> [String] {
        var names = names(route.pipeline)
        for stage in route.stages { names += ["expand"] + self.names(stage.then) }
        return names
    }

    private static func names(_ pipeline: Pipeline) -> [String] {
        pipeline.written.isEmpty
            ? pipeline.steps.map { String(describing: type(of: $0)) }
            : pipeline.written.map { $0.record?.members.first?.key ?? "?" }
    }

    private static func shown(_ pointer: String) -> String { pointer.isEmpty ? "(root)" : pointer }
}
