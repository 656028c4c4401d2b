import ReshapeJSON

/// `drop: [a, b]` — removes fields from a record (or every record in an array).
package struct DropOperation: TransformOperation {
    package let fields: [String]

    package init(fields: [String]) { self.fields = fields }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        DropOperation(fields: try argument.stringList())
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        try RecordScope.forEachRecord(in: &value, operation: "drop") { record in
            record.members.removeAll { member in fields.contains(member.key) }
        }
    }
}

extension DropOperation {
    /// On an array, each record loses its fields alone.
    package var isElementLocal: Bool { true }
}
