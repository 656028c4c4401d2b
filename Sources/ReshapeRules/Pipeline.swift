import ReshapeJSON

/// An element that a `validate` step with `invalid: drop` removed.
package struct DroppedElement: Sendable, Equatable {
    /// JSON Pointer of the element in the value the validate step received.
    package var pointer: String
    /// The rule type it failed.
    package var type: String
    /// First violation, human readable, with the pointer of the bad value.
    package var reason: String
    package init(pointer: String, type: String, reason: String) {
        self.pointer = pointer
        self.type = type
        self.reason = reason
    }
}

/// Why a pipeline gave up on a whole document.
package struct PipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable machine code: `select-missing`, `validation-failed`, `not-an-array`, ...
    package var code: String
    package var message: String
    /// JSON Pointer to the offending value, when there is one.
    package var pointer: String?
    /// Per-violation details for `validation-failed`: pointer, keyword, reason.
    package var errors: [Violation]

    package struct Violation: Sendable, Equatable {
        package var pointer: String
        package var keyword: String
        package var reason: String
        package init(pointer: String, keyword: String, reason: String) {
            self.pointer = pointer
            self.keyword = keyword
            self.reason = reason
        }
    }

    package init(code: String, message: String, pointer: String? = nil, errors: [Violation] = []) {
        self.code = code
        self.message = message
        self.pointer = pointer
        self.errors = errors
    }

    package var description: String {
        if let pointer { return "\(code) at \(pointer.isEmpty ? "(root)" : pointer): \(message)" }
        return "\(code): \(message)"
    }
}

/// What a successful run produced.
package struct PipelineOutput: Sendable {
    /// The result; values that came from the upstream untouched are still its bytes.
    package var tapeValue: TapeValue
    package var dropped: [DroppedElement]

    package init(value: JSON, dropped: [DroppedElement]) {
        self.init(tapeValue: TapeValue(value), dropped: dropped)
    }

    init(tapeValue: TapeValue, dropped: [DroppedElement]) {
        self.tapeValue = tapeValue
        self.dropped = dropped
    }

    /// The result as a tree (built on demand when the run kept upstream bytes).
    package var value: JSON { tapeValue.materialized() }

    /// The result as compact canonical JSON, the same bytes as `value.serialized()`.
    package func serialized() -> [UInt8] {
        // Written in place: a large answer is not copied from the writer's buffer afterwards.
        JSONTextWriter.bytes(capacity: tapeValue.expectedSize + 64) { tapeValue.serialize(into: $0) }
    }

    /// Appends the result as compact canonical JSON to `output`.
    package func serialize(into output: inout [UInt8]) {
        let writer = JSONTextWriter(capacity: tapeValue.expectedSize + 64)
        tapeValue.serialize(into: writer)
        writer.copy(into: &output)
    }
}

/// State a run carries from step to step.
package struct TransformContext: Sendable {
    /// Values captured from the client path (`{id}`), for `set` templates.
    package var parameters: [String: String]
    /// The request's Firebase query order (its `orderBy`), for `keyed-to-array`'s `order: query`.
    package var queryOrder: FirebaseQuery.Order
    /// Elements removed by `validate` steps so far.
    package var dropped: [DroppedElement]
    /// Set by a step that dropped the whole value it was given (`validate` or `coerce` with
    /// `invalid: drop` on one record); the enclosing `each` or `at` then removes that element.
    var removesCurrentValue = false
    package init(parameters: [String: String] = [:], queryOrder: FirebaseQuery.Order = .key) {
        self.parameters = parameters
        self.queryOrder = queryOrder
        self.dropped = []
    }
}

/// One compiled transform step. Operations mutate in place so that a uniquely held
/// document is never copied. Both paths of an operation live in its own file: `apply` on a
/// tree, and `applyOnTape` on a value still (partly) on the upstream's tape.
package protocol TransformOperation: Sendable {
    func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError)

    /// Runs the step without building the value, when it can. Returns false, leaving the value
    /// as it was, when it cannot; the pipeline then materializes the value and calls `apply`,
    /// so the answer is the same either way.
    func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool

    /// True when, given an array, the step treats each element on its own: what it makes of an
    /// element depends only on that element (and the path captures), and it removes element
    /// `i` exactly when it records a drop at pointer `/i`. A route whose steps after
    /// `keyed-to-array` all are can be re-run on the records that changed (`RecordwisePipeline`).
    var isElementLocal: Bool { get }
}

extension TransformOperation {
    /// Operations are not element-local unless they say so.
    package var isElementLocal: Bool { false }

    /// Operations without a tape path: the pipeline builds the tree for them.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        false
    }
}

/// A route's transform: compiled steps applied in order. Pure: no I/O, no shared state.
package struct Pipeline: Sendable {
    package var steps: [any TransformOperation]
    /// Each step as written in the rule file (`{name: argument}`), parallel to `steps`; empty
    /// for pipelines built in code. Only tools read it (`reshape explain`); runs never do.
    package var written: [JSON]
    package init(steps: [any TransformOperation], written: [JSON] = []) {
        self.steps = steps
        self.written = written.count == steps.count ? written : []
    }

    /// `input` is consumed: when the caller passes its last reference (a freshly parsed body),
    /// the steps mutate the document in place instead of copying it. `observe`, when given, is
    /// called after each step (`reshape explain`); nil costs nothing.
    package func run(
        _ input: consuming JSON, parameters: [String: String] = [:], queryOrder: FirebaseQuery.Order = .key,
        observe: StepObserver? = nil
    ) throws(PipelineError) -> PipelineOutput {
        try run(from: TapeValue(input), parameters: parameters, queryOrder: queryOrder, observe: observe)
    }

    /// Runs on a parsed upstream body without building it as a tree while the steps only
    /// read, filter or wrap it (`select`, `require`, `keyed-to-array`, `coerce` where nothing
    /// converts, `validate`, `wrap`); from the first step that must change values on, the
    /// steps run on the tree. The output is the same as `run(document.materialize(root))`.
    package func run(
        _ document: JSONTape, parameters: [String: String] = [:], queryOrder: FirebaseQuery.Order = .key,
        observe: StepObserver? = nil
    ) throws(PipelineError) -> PipelineOutput {
        try run(from: TapeValue(tape: document), parameters: parameters, queryOrder: queryOrder, observe: observe)
    }

    /// The step loop of every run, traced or not, on the tape or on a tree. A value built as
    /// a tree stays one, so a run from a tree calls only the steps' tree paths. Untraced, a
    /// step costs its own work and one test of `observe`.
    func run(
        from input: consuming TapeValue, parameters: [String: String], queryOrder: FirebaseQuery.Order = .key,
        observe: StepObserver?
    ) throws(PipelineError) -> PipelineOutput {
        var value = input
        var context = TransformContext(parameters: parameters, queryOrder: queryOrder)
        for index in steps.indices {
            let droppedBefore = context.dropped.count
            try Self.run(steps[index], on: &value, context: &context)
            if let observe {
                observe(trace(index, value.materialized(), Array(context.dropped[droppedBefore...])))
            }
        }
        return PipelineOutput(tapeValue: value, dropped: context.dropped)
    }

    /// One step on a value that may still be on the tape: its tape path when it has one,
    /// otherwise the tree.
    @inline(__always)
    static func run(_ step: any TransformOperation, on value: inout TapeValue, context: inout TransformContext)
        throws(PipelineError)
    {
        if case .tree = value.core {
            // Nothing is on the tape any more: the tree steps take it from here.
        } else if try step.applyOnTape(to: &value, context: &context) {
            return
        }
        var tree = value.materialized()
        value = TapeValue(.null)
        try step.apply(to: &tree, context: &context)
        value = TapeValue(tree)
    }
}
