import ReshapeJSON

extension WrapOperation: StagedOperation {
    /// Wrapping never needs the value built: the envelope is written around it.
    func applyStaged(to value: inout StagedValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        value.envelopes.append(field)
        return true
    }
}
