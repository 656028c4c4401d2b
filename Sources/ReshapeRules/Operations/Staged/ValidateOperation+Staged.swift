import ReshapeJSON
import ReshapeSchema

extension ValidateOperation: StagedOperation {
    /// Checks records where they are on the tape; only invalid ones are built, for their
    /// violations. A single value that fails is left to the tree path, which reports it.
    func applyStaged(to value: inout StagedValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, let tape = value.tape else { return false }
        var list: RecordList
        switch value.core {
        case .tree:
            return false
        case .node(let node):
            guard tape.kind(node) == .array else { return validator.isValid(tape, node) }
            var elements: [RecordList.Record] = []
            elements.reserveCapacity(tape.count(node))
            tape.forEachElement(node) { _, element in elements.append(.onTape(name: -1, value: element)) }
            list = RecordList(keyField: "", records: elements)
        case .records(let records):
            list = records
        }
        let keyField = list.keyField
        let records = list.records
        let rejected = try rejectedElements(count: records.count, context: &context, isValid: { i in
            switch records[i] {
            case .tree(let record): return validator.isValid(record)
            case .onTape(let name, let record):
                return validator.isValid(tape, record, prepending: name < 0 ? nil : PrependedMember(name: keyField, valueNode: name))
            }
        }, element: { list.materialize(records[$0], tape) })
        if !rejected.isEmpty {
            value.core = .tree(.null)
            ElementFilter.remove(rejected, from: &list.records)
        }
        value.core = .records(list)
        return true
    }
}
