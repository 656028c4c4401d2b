import ReshapeJSON

/// What a traced run reports after each step, for tools that show a run step by step
/// (`reshape explain`). The server never traces: an untraced run takes no closure at all.
public struct StepTrace {
    /// The operation's name (`keyed-to-array`), or `expand` for a follow-up merge.
    public var name: String
    /// The step's argument as written in the rule file; nil when the pipeline was built in code.
    public var argument: JSON?
    /// The compiled step; nil for an `expand` merge.
    public var operation: (any TransformOperation)?
    /// The value after the step, as a tree (the same on the tape and tree paths).
    public var value: JSON
    /// Elements this step dropped; pointers are into the value it received.
    public var dropped: [DroppedElement]

    public init(name: String, argument: JSON?, operation: (any TransformOperation)?, value: JSON, dropped: [DroppedElement]) {
        self.name = name
        self.argument = argument
        self.operation = operation
        self.value = value
        self.dropped = dropped
    }
}

/// Called after each step of a traced run.
public typealias StepObserver = (StepTrace) -> Void

extension Pipeline {
    /// `run(document, parameters:)`, calling `observe` after each step. With `observe` nil it
    /// is exactly the untraced run: the trace costs nothing unless asked for.
    public func run(_ document: JSONTape, parameters: [String: String] = [:], observe: StepObserver?) throws(PipelineError) -> PipelineOutput {
        guard let observe else { return try run(document, parameters: parameters) }
        var value = TapeValue(tape: document)
        var context = TransformContext(parameters: parameters)
        for index in steps.indices {
            let droppedBefore = context.dropped.count
            try Self.run(steps[index], on: &value, context: &context)
            observe(trace(index, value.materialized(), Array(context.dropped[droppedBefore...])))
        }
        return PipelineOutput(tapeValue: value, dropped: context.dropped)
    }

    /// `run(input, parameters:)` on a tree, calling `observe` after each step.
    public func run(_ input: consuming JSON, parameters: [String: String] = [:], observe: StepObserver?) throws(PipelineError) -> PipelineOutput {
        guard let observe else { return try run(input, parameters: parameters) }
        var value = input
        var context = TransformContext(parameters: parameters)
        for index in steps.indices {
            let droppedBefore = context.dropped.count
            try steps[index].apply(to: &value, context: &context)
            observe(trace(index, value, Array(context.dropped[droppedBefore...])))
        }
        return PipelineOutput(value: value, dropped: context.dropped)
    }

    private func trace(_ index: Int, _ value: JSON, _ dropped: [DroppedElement]) -> StepTrace {
        let written = index < self.written.count ? self.written[index].objectValue?.members.first : nil
        return StepTrace(name: written?.key ?? Self.operationName(steps[index]), argument: written?.value,
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
