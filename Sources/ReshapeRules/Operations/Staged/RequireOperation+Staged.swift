import ReshapeJSON

extension RequireOperation: StagedOperation {
    /// Only a tape `null` fails; the tree path then throws the usual error.
    func applyStaged(to value: inout StagedValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, case .node(let node) = value.core else { return true }
        return value.tape!.kind(node) != .null
    }
}
