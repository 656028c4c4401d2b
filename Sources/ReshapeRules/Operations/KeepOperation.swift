import ReshapeJSON

/// `keep: [a, b]` — removes every field of a record (or of every record in an array) that
/// is not listed; the kept fields stay in the record's own order.
package struct KeepOperation: TransformOperation {
    package let fields: [String]

    package init(fields: [String]) { self.fields = fields }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        KeepOperation(fields: try argument.stringList())
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        try RecordScope.forEachRecord(in: &value, operation: "keep") { record in
            record.members.removeAll { member in !fields.contains(member.key) }
        }
    }
}

extension KeepOperation {
    /// On an array, each record keeps its fields alone.
    package var isElementLocal: Bool { true }
}
