import ReshapeJSON

extension SelectOperation: StagedOperation {
    /// Follows the pointer on the tape. When nothing is there, the tree path reports it.
    func applyStaged(to value: inout StagedValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, case .node(var node) = value.core, let tape = value.tape else { return false }
        for token in pointer.tokens {
            switch tape.kind(node) {
            case .object:
                var name = token
                guard let found = name.withUTF8({ tape.member(node, named: $0) }) else { return false }
                node = found
            case .array:
                guard let index = JSON.arrayIndex(token), index < tape.count(node) else { return false }
                var element = node + 1
                for _ in 0..<index { element = tape.next(element) }
                node = element
            default:
                return false
            }
        }
        value.core = .node(node)
        return true
    }
}
