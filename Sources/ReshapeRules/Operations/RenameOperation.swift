import ReshapeJSON

/// `rename: { old: new }` — renames fields of a record (or of every record in an array),
/// keeping their position. An absent field is left alone; an existing field with the new
/// name is replaced.
package struct RenameOperation: TransformOperation {
    package let renames: [(from: String, to: String)]

    package init(renames: [(from: String, to: String)]) { self.renames = renames }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object()
        guard !object.isEmpty else { throw argument.error("expected at least one 'old: new' pair") }
        var renames: [(from: String, to: String)] = []
        for member in object.members {
            guard case .string(let target) = member.value, !target.isEmpty else {
                throw argument.error(
                    "the new name must be a non-empty string, found \(member.value.kindName)", at: member.key)
            }
            renames.append((member.key, target))
        }
        return RenameOperation(renames: renames)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        try RecordScope.forEachRecord(in: &value, operation: "rename") { record in
            for (from, to) in renames where from != to {
                guard let i = record.index(forKey: from) else { continue }
                record.members[i].key = to
                if let j = record.members.indices.first(where: { $0 != i && record.members[$0].key == to }) {
                    record.members.remove(at: j)
                }
            }
        }
    }
}

extension RenameOperation {
    /// On an array, each record is renamed alone.
    package var isElementLocal: Bool { true }
}
