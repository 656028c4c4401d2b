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
        // One pass over the members: each record's nodes are read once, while in cache.
        var names: [Int] = []
        var records: [RecordList.Record] = []
        names.reserveCapacity(tape.count(node))
        records.reserveCapacity(tape.count(node))
        var keyName = keyField
        keyName.withUTF8 { key in
            tape.forEachMember(node) { name, record in
                names.append(name)
                let staysOnTape = tape.kind(record) == .object && tape.member(record, named: key) == nil
                records.append(staysOnTape ? .onTape(name: name, value: record) : .tree(.null))
            }
        }
        if order != .source {
            let permutation = KeyOrder.permutation(names.map { tape.string($0) }, numeric: order == .numericKey)
            names = permutation.map { names[$0] }
            records = permutation.map { records[$0] }
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
