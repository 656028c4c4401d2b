import ReshapeJSON

/// `merge: { base: /user, add: { devices: /devices } }` — the object at `base` (a JSON
/// Pointer; "" is the whole value), plus, for each `add` member in order, the value at its
/// pointer, replacing a member of the same name in place. Made for a `fetch:` route's input
/// (`{"user": ..., "devices": ...}`), but works on any object.
package struct MergeOperation: TransformOperation {
    package let base: JSONPointer
    package let additions: [(name: String, pointer: JSONPointer)]

    package init(base: JSONPointer, additions: [(name: String, pointer: JSONPointer)]) {
        self.base = base
        self.additions = additions
    }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object(allowing: ["base", "add"])
        guard let baseArgument = argument.member("base", of: object) else {
            throw argument.error(
                "missing 'base' (a JSON Pointer to the object to start from; \"\" for the whole value)")
        }
        let base = try pointer(baseArgument)
        guard let addArgument = argument.member("add", of: object) else {
            throw argument.error("missing 'add' (a mapping of member names to JSON Pointers)")
        }
        guard case .object(let add) = addArgument.value, !add.isEmpty else {
            throw addArgument.error(
                "'add' must be a non-empty mapping of member names to JSON Pointers, found \(addArgument.value.kindName)"
            )
        }
        var additions: [(name: String, pointer: JSONPointer)] = []
        for member in add.members {
            guard let memberArgument = addArgument.member(member.key, of: add) else { continue }
            additions.append((member.key, try pointer(memberArgument)))
        }
        return MergeOperation(base: base, additions: additions)
    }

    private static func pointer(_ argument: OperationArgument) throws(OperationConfigError) -> JSONPointer {
        guard case .string(let text) = argument.value else {
            throw argument.error("expected a JSON Pointer string such as /user, found \(argument.value.kindName)")
        }
        guard let pointer = JSONPointer(text) else {
            throw argument.error(
                "'\(text)' is not a JSON Pointer (it must be empty or start with '/'; '~' only as ~0 or ~1)")
        }
        return pointer
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .object = value else {
            throw PipelineError(
                code: "not-an-object", message: "merge expects an object, found \(value.kindName)", pointer: "")
        }
        // Read every addition before the base is taken out of the value.
        var added: [JSONMember] = []
        added.reserveCapacity(additions.count)
        for addition in additions {
            guard let found = value[addition.pointer] else {
                throw PipelineError(
                    code: "merge-missing",
                    message: "merge: nothing at \(addition.pointer) to add as '\(addition.name)'",
                    pointer: addition.pointer.description)
            }
            added.append(JSONMember(key: addition.name, value: found))
        }
        guard let start = value[base] else {
            throw PipelineError(
                code: "merge-missing", message: "merge: nothing at \(base) to start from", pointer: base.description)
        }
        guard case .object(var result) = start else {
            throw PipelineError(
                code: "not-an-object", message: "merge: the base at \(base) must be an object, found \(start.kindName)",
                pointer: base.description)
        }
        value = .null
        for member in added { result[member.key] = member.value }
        value = .object(result)
    }
}
