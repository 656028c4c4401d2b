import ReshapeJSON

/// What a traced run reports after each step, for tools that show a run step by step
/// (`reshape explain`). The server never traces: an untraced run takes no closure at all.
package struct StepTrace {
    /// The operation's name (`keyed-to-array`), or `expand` for a follow-up merge.
    package var name: String
    /// The step's argument as written in the rule file; nil when the pipeline was built in code.
    package var argument: JSON?
    /// The compiled step; nil for an `expand` merge.
    package var operation: (any TransformOperation)?
    /// The value after the step, as a tree (the same on the tape and tree paths).
    package var value: JSON
    /// Elements this step dropped; pointers are into the value it received.
    package var dropped: [DroppedElement]

    package init(
        name: String, argument: JSON?, operation: (any TransformOperation)?, value: JSON, dropped: [DroppedElement]
    ) {
        self.name = name
        self.argument = argument
        self.operation = operation
        self.value = value
        self.dropped = dropped
    }
}

/// Called after each step of a traced run.
package typealias StepObserver = (StepTrace) -> Void

extension Pipeline {
    /// What `observe` is given after step `index`: the step as written, and its effect.
    func trace(_ index: Int, _ value: JSON, _ dropped: [DroppedElement]) -> StepTrace {
        let written = index < self.written.count ? self.written[index].objectValue?.members.first : nil
        return StepTrace(
            name: written?.key ?? Self.operationName(steps[index]), argument: written?.value,
            operation: steps[index], value: value, dropped: dropped)
    }

    /// A name for a step built in code: its type's name, `KeyedToArrayOperation` → `keyed-to-array`.
    static func operationName(_ step: any TransformOperation) -> String {
        var name = String(describing: type(of: step))
        if name.hasSuffix("Operation") { name.removeLast("Operation".count) }
        var result = ""
        for character in name {
            if character.isUppercase && !result.isEmpty { result.append("-") }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }
}
