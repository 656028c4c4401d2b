import ReshapeJSON

extension KeyedToArrayOperation: StagedOperation {
    /// A keyed object on the tape becomes a record list: each record stays on the tape and
    /// gets its name as `keyField` when written. Records that are not objects, or already
    /// have a `keyField` member, are built and converted as the tree path does. Firebase's
    /// array form and anything that is not an object take the tree path.
    func applyStaged(to value: inout StagedValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, case .node(let node) = value.core, let tape = value.tape else { return false }
        switch tape.kind(node) {
        case .null:
            value.core = .records(RecordList(keyField: keyField, records: []))
            return true
        case .object:
            break
        default:
            return false
        }
        var names: [Int] = []
        names.reserveCapacity(tape.count(node))
        tape.forEachMember(node) { name, _ in names.append(name) }
        if order != .source {
            let permutation = KeyOrder.permutation(names.map { tape.string($0) }, numeric: order == .numericKey)
            names = permutation.map { names[$0] }
        }
        var keyName = keyField
        var records: [RecordList.Record] = keyName.withUTF8 { key in
            names.map { name in
                let record = name + 1
                let staysOnTape = tape.kind(record) == .object && tape.member(record, named: key) == nil
                return staysOnTape ? .onTape(name: name, value: record) : .tree(.null)
            }
        }
        for i in records.indices {
            guard case .tree = records[i] else { continue }
            var built = tape.materialize(names[i] + 1)
            try convert(&built, key: tape.string(names[i]))
            records[i] = .tree(built)
        }
        value.core = .records(RecordList(keyField: keyField, records: records))
        return true
    }
}
