import ReshapeJSON

/// `default: { field: value }` — gives a record (or every record in an array) a field it
/// lacks or holds as `null`; present values are left alone. New fields go at the end.
package struct DefaultOperation: TransformOperation {
    package let defaults: [JSONMember]

    package init(defaults: [JSONMember]) { self.defaults = defaults }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object()
        guard !object.isEmpty else { throw argument.error("expected at least one 'field: value' pair") }
        return DefaultOperation(defaults: object.members)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        try RecordScope.forEachRecord(in: &value, operation: "default") { record in
            for member in defaults {
                if let i = record.index(forKey: member.key) {
                    if case .null = record.members[i].value { record.members[i].value = member.value }
                } else {
                    record.members.append(member)
                }
            }
        }
    }
}

extension DefaultOperation {
    /// On an array, each record gets its defaults alone.
    package var isElementLocal: Bool { true }
}
