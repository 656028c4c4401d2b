import ReshapeJSON

/// `array-to-keyed: { key: objectId, keep-key: false }` — the inverse of `keyed-to-array`:
/// an array of records becomes an object whose member names are each record's `key` field
/// (a string, or a number's text), in array order. The key field is removed from the record
/// unless `keep-key: true`. `null` becomes `{}`.
///
/// Errors: `not-an-array`, `not-an-object` (an element), `missing-key`, `invalid-key`
/// (the key is not a string or number), `duplicate-key` (pointer to the second record's key).
package struct ArrayToKeyedOperation: TransformOperation {
    package let keyField: String
    package let keepKey: Bool

    package init(keyField: String = "objectId", keepKey: Bool = false) {
        self.keyField = keyField
        self.keepKey = keepKey
    }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object(allowing: ["key", "keep-key"])
        let key = try argument.option("key", in: object, default: "objectId")
        var keepKey = false
        if let flag = object["keep-key"] {
            guard case .bool(let value) = flag else {
                throw argument.error("'keep-key' must be true or false", at: "keep-key")
            }
            keepKey = value
        }
        return ArrayToKeyedOperation(keyField: key, keepKey: keepKey)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        if case .null = value {
            value = .object(JSONObject())
            return
        }
        guard case .array(var elements) = value else {
            throw PipelineError(
                code: "not-an-array", message: "array-to-keyed expects an array, found \(value.kindName)", pointer: "")
        }
        value = .null
        var members: [JSONMember] = []
        members.reserveCapacity(elements.count)
        var seen = Set<String>(minimumCapacity: elements.count)
        for i in elements.indices {
            guard case .object(var record) = elements[i] else {
                throw PipelineError(
                    code: "not-an-object", message: "array-to-keyed expects records, found \(elements[i].kindName)",
                    pointer: JSONPointer.appending(index: i, to: ""))
            }
            elements[i] = .null
            guard let keyIndex = record.index(forKey: keyField) else {
                throw PipelineError(
                    code: "missing-key", message: "record has no '\(keyField)' field",
                    pointer: JSONPointer.appending(index: i, to: ""))
            }
            let name: String
            switch record.members[keyIndex].value {
            case .string(let text): name = text
            case .number(let number): name = number.text
            default:
                throw PipelineError(
                    code: "invalid-key",
                    message:
                        "'\(keyField)' must be a string or a number, found \(record.members[keyIndex].value.kindName)",
                    pointer: JSONPointer.appending(key: keyField, to: JSONPointer.appending(index: i, to: "")))
            }
            guard seen.insert(name).inserted else {
                throw PipelineError(
                    code: "duplicate-key", message: "key '\(name)' appears more than once",
                    pointer: JSONPointer.appending(key: keyField, to: JSONPointer.appending(index: i, to: "")))
            }
            if !keepKey { record.members.remove(at: keyIndex) }
            members.append(JSONMember(key: name, value: .object(record)))
        }
        value = .object(JSONObject(members))
    }
}
