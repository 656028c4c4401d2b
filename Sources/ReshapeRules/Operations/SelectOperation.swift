import ReshapeJSON

/// `select: /data/items` — continue with the value at a JSON Pointer; a missing value is
/// the error `select-missing`.
public struct SelectOperation: TransformOperation {
    public let pointer: JSONPointer

    public init(pointer: JSONPointer) { self.pointer = pointer }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError) -> any TransformOperation {
        guard case .string(let text) = argument.value else {
            throw argument.error("expected a JSON Pointer string such as /data/items, found \(argument.value.kindName)")
        }
        guard let pointer = JSONPointer(text) else {
            throw argument.error("'\(text)' is not a JSON Pointer (it must be empty or start with '/'; '~' only as ~0 or ~1)")
        }
        return SelectOperation(pointer: pointer)
    }

    public func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard let selected = value[pointer] else {
            throw PipelineError(code: "select-missing", message: "nothing at \(pointer) to select", pointer: pointer.description)
        }
        // Replacing the document releases its other parts; the selected subtree becomes unique.
        value = selected
    }
}

// MARK: - On the tape

extension SelectOperation {
    /// Follows the pointer on the tape. When nothing is there, the tree path reports it.
    public func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
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
