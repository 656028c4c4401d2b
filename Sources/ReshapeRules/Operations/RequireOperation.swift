import ReshapeJSON

/// `require: present` — the upstream must have sent something. Firebase answers a missing
/// path with 200 `null`; for a single record that means "not found", which the client should
/// get as 404 (`not-found`) rather than as a shape error from a later step.
package struct RequireOperation: TransformOperation {
    static let choices = ["present"]

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let what = try argument.string()
        guard choices.contains(what) else {
            throw argument.error("require takes one of: \(choices.joined(separator: ", ")) (found '\(what)')")
        }
        return RequireOperation()
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        if case .null = value {
            throw PipelineError(
                code: "not-found", message: "the upstream has nothing at this path (it answered null)", pointer: "")
        }
    }
}

// MARK: - On the tape

extension RequireOperation {
    /// Only a tape `null` fails; the tree path then throws the usual error.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, case .node(let node) = value.core else { return true }
        return value.tape!.kind(node) != .null
    }
}
