import ReshapeJSON

/// `each: [ ...steps ]` — applies steps to every element of an array, in place. An element
/// a nested `validate`/`coerce` drops (`invalid: drop` on a single record) is removed.
/// Error and drop pointers are prefixed with the element's index in the array received.
public struct EachOperation: TransformOperation {
    public let body: Pipeline

    public init(body: Pipeline) { self.body = body }

    static func compile(_ argument: OperationArgument, _ context: OperationCompileContext) throws(OperationConfigError) -> any TransformOperation {
        do {
            return EachOperation(body: try OperationCatalog.compile(steps: argument.value, context: context))
        } catch {
            throw OperationConfigError(message: error.pointer.isEmpty ? "each: \(error.message)" : error.message,
                                       pointer: argument.pointer + error.pointer)
        }
    }

    public func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .array(var elements) = value else {
            throw PipelineError(code: "not-an-array", message: "each expects an array, found \(value.kindName)", pointer: "")
        }
        value = .null
        var kept = 0
        for i in elements.indices {
            let droppedBefore = context.dropped.count
            context.removesCurrentValue = false
            do {
                try body.apply(to: &elements[i], context: &context)
            } catch {
                throw error.nested(under: JSONPointer.appending(index: i, to: ""))
            }
            if context.dropped.count > droppedBefore {
                context.rebaseDropped(from: droppedBefore, under: JSONPointer.appending(index: i, to: ""))
            }
            if context.removesCurrentValue { continue }
            if kept != i { elements.swapAt(kept, i) }
            kept += 1
        }
        context.removesCurrentValue = false
        if kept < elements.count { elements.removeLast(elements.count - kept) }
        value = .array(elements)
    }
}
