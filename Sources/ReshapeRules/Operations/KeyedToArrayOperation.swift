import ReshapeJSON

/// `keyed-to-array: { key: objectId, value: value, order: source, conflict: overwrite }` —
/// an object whose members are records becomes an array of those records, each given its
/// member name under `key` (as the record's first field). A member that is not an object
/// becomes `{key: name, value: v}`. `null` and `{}` become `[]`. Firebase's array with
/// `null` holes is accepted: the index becomes the key (as a string) and holes are skipped.
///
/// When a record already has a `key` field, `conflict` decides: `overwrite` (the default;
/// the member name is the record's identity, so it wins, in the field's existing position),
/// `keep` (the record's own value stays) or `fail` (error `key-conflict`).
public struct KeyedToArrayOperation: TransformOperation {
    public enum Order: String, Sendable, CaseIterable {
        /// As the upstream sent them.
        case source
        /// By member name, comparing UTF-8 bytes (push IDs then come in creation order).
        case key
        /// Names that are JSON numbers, in numeric order first; all other names after them, by bytes.
        case numericKey = "numeric-key"
    }
    public enum Conflict: String, Sendable, CaseIterable {
        case overwrite, keep, fail
    }

    public let keyField: String
    public let valueField: String
    public let order: Order
    public let conflict: Conflict

    public init(keyField: String = "objectId", valueField: String = "value", order: Order = .source, conflict: Conflict = .overwrite) {
        self.keyField = keyField
        self.valueField = valueField
        self.order = order
        self.conflict = conflict
    }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError) -> any TransformOperation {
        let object = try argument.object(allowing: ["key", "value", "order", "conflict"])
        let key = try argument.option("key", in: object, default: "objectId")
        let value = try argument.option("value", in: object, default: "value")
        let order = try argument.option("order", in: object, default: "source", choices: Order.allCases.map(\.rawValue))
        let conflict = try argument.option("conflict", in: object, default: "overwrite", choices: Conflict.allCases.map(\.rawValue))
        return KeyedToArrayOperation(keyField: key, valueField: value, order: Order(rawValue: order)!, conflict: Conflict(rawValue: conflict)!)
    }

    public func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        switch value {
        case .null:
            value = .array([])
        case .object(var object):
            value = .null
            var members = object.members
            object = JSONObject()  // `members` is now the only reference
            switch order {
            case .source: break
            case .key: members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            case .numericKey: KeyOrder.sortNumerically(&members)
            }
            var records: [JSON] = []
            records.reserveCapacity(members.count)
            for i in members.indices {
                let member = members[i].value
                members[i].value = .null
                records.append(try record(member, key: members[i].key))
            }
            value = .array(records)
        case .array(var elements):
            // Firebase's integer-keyed collection: position is the key, nulls are holes.
            value = .null
            var records: [JSON] = []
            records.reserveCapacity(elements.count)
            for i in elements.indices {
                if case .null = elements[i] { continue }
                let element = elements[i]
                elements[i] = .null
                records.append(try record(element, key: String(i)))
            }
            value = .array(records)
        default:
            throw PipelineError(code: "not-an-object",
                                message: "keyed-to-array expects an object, an array or null, found \(value.kindName)",
                                pointer: "")
        }
    }

    /// One element of the result; `member` is the only reference to its storage.
    @inline(__always)
    private func record(_ member: consuming JSON, key: String) throws(PipelineError) -> JSON {
        guard case .object(var record) = member else {
            return .object(JSONObject([JSONMember(key: keyField, value: .string(key)), JSONMember(key: valueField, value: member)]))
        }
        member = .null  // `record` now holds the only reference
        if let existing = record.index(forKey: keyField) {
            switch conflict {
            case .overwrite: record.members[existing].value = .string(key)
            case .keep: break
            case .fail:
                throw PipelineError(code: "key-conflict",
                                    message: "record '\(key)' already has a '\(keyField)' field",
                                    pointer: JSONPointer.appending(key: keyField, to: JSONPointer.appending(key: key, to: "")))
            }
        } else {
            record.members.insert(JSONMember(key: keyField, value: .string(key)), at: 0)
        }
        return .object(record)
    }
}

/// Ordering of member names as numbers.
enum KeyOrder {
    /// Number names first in numeric order, then the rest by UTF-8 bytes; stable.
    static func sortNumerically(_ members: inout [JSONMember]) {
        let numbers: [JSONNumber?] = members.map { member in
            guard let number = JSONNumber(member.key) else { return nil }
            return number
        }
        var order = Array(members.indices)
        order.sort { a, b in
            switch (numbers[a], numbers[b]) {
            case (let x?, let y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return members[a].key.utf8.lexicographicallyPrecedes(members[b].key.utf8)
            }
        }
        var sorted: [JSONMember] = []
        sorted.reserveCapacity(members.count)
        for i in order { sorted.append(members[i]) }
        members = sorted
    }
}
