import ReshapeJSON

/// `select: /data/items` — continue with the value at a JSON Pointer; a missing value is
/// the error `select-missing`.
package struct SelectOperation: TransformOperation {
    package let pointer: JSONPointer

    package init(pointer: JSONPointer) { self.pointer = pointer }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        guard case .string(let text) = argument.value else {
            throw argument.error("expected a JSON Pointer string such as /data/items, found \(argument.value.kindName)")
        }
        guard let pointer = JSONPointer(text) else {
            throw argument.error(
                "'\(text)' is not a JSON Pointer (it must be empty or start with '/'; '~' only as ~0 or ~1)")
        }
        return SelectOperation(pointer: pointer)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard let selected = value[pointer] else {
            throw PipelineError(
                code: "select-missing", message: "nothing at \(pointer) to select", pointer: pointer.description)
        }
        // Replacing the document releases its other parts; the selected subtree becomes unique.
        value = selected
    }
}

// MARK: - On the tape

extension SelectOperation {
    /// Follows the pointer on the tape. When nothing is there, the tree path reports it.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, case .node(let node) = value.core, let tape = value.tape,
            let selected = tape.node(at: pointer, from: node)
        else { return false }
        value.core = .node(selected)
        return true
    }
}
