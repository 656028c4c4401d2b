import ReshapeJSON

/// `wrap: objects` — the value becomes `{"objects": value}`.
package struct WrapOperation: TransformOperation {
    package let field: String

    package init(field: String) { self.field = field }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        WrapOperation(field: try argument.string())
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        let inner = value
        value = .null  // leave `inner` the only reference
        value = .object(JSONObject([JSONMember(key: field, value: inner)]))
    }
}

// MARK: - On the tape

extension WrapOperation {
    /// Wrapping never needs the value built: the envelope is written around it.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        value.envelopes.append(field)
        return true
    }
}
