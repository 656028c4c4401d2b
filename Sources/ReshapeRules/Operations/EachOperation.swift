import ReshapeJSON

/// `each: [ ...steps ]` — applies steps to every element of an array, in place. An element
/// a nested `validate`/`coerce` drops (`invalid: drop` on a single record) is removed.
/// Error and drop pointers are prefixed with the element's index in the array received.
package struct EachOperation: TransformOperation {
    package let body: Pipeline

    package init(body: Pipeline) { self.body = body }

    static func compile(_ argument: OperationArgument, _ context: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        do {
            return EachOperation(body: try OperationCatalog.compile(steps: argument.value, context: context))
        } catch {
            throw OperationConfigError(
                message: error.pointer.isEmpty ? "each: \(error.message)" : error.message,
                pointer: argument.pointer + error.pointer)
        }
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .array(var elements) = value else {
            throw PipelineError(
                code: "not-an-array", message: "each expects an array, found \(value.kindName)", pointer: "")
        }
        value = .null
        try ElementFilter.removeRejected(from: &elements) {
            (element: inout JSON, i: Int) throws(PipelineError) -> Bool in
            let droppedBefore = context.dropped.count
            context.removesCurrentValue = false
            do throws(PipelineError) {
                try body.apply(to: &element, context: &context)
            } catch {
                throw error.nested(under: JSONPointer.appending(index: i, to: ""))
            }
            if context.dropped.count > droppedBefore {
                context.rebaseDropped(from: droppedBefore, under: JSONPointer.appending(index: i, to: ""))
            }
            return !context.removesCurrentValue
        }
        context.removesCurrentValue = false
        value = .array(elements)
    }
}

extension EachOperation {
    /// Its body sees one element at a time, whatever its steps.
    package var isElementLocal: Bool { true }
}
