import ReshapeJSON

/// `drop: [a, b]` — removes fields from a record (or every record in an array).
public struct DropOperation: TransformOperation {
    public let fields: [String]

    public init(fields: [String]) { self.fields = fields }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        DropOperation(fields: try argument.stringList())
    }

    public func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        try RecordScope.forEachRecord(in: &value, operation: "drop") { record in
            record.members.removeAll { member in fields.contains(member.key) }
        }
    }
}

extension DropOperation {
    /// On an array, each record loses its fields alone.
    public var isElementLocal: Bool { true }
}
