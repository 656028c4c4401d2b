import ReshapeJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `keyed-to-array: { key: objectId, value: value, order: source, conflict: overwrite }` —
/// an object whose members are records becomes an array of those records, each given its
/// member name under `key` (as the record's first field). A member that is not an object
/// becomes `{key: name, value: v}`. `null` and `{}` become `[]`. Firebase's array with
/// `null` holes is accepted: the index becomes the key (as a string) and holes are skipped.
///
/// When a record already has a `key` field, `conflict` decides: `overwrite` (the default;
/// the member name is the record's identity, so it wins, in the field's existing position),
/// `keep` (the record's own value stays) or `fail` (error `key-conflict`).
package struct KeyedToArrayOperation: TransformOperation {
    package enum Order: String, Sendable, CaseIterable {
        /// As the upstream sent them.
        case source
        /// By member name, comparing UTF-8 bytes (push IDs then come in creation order).
        case key
        /// Names that are JSON numbers, in numeric order first; all other names after them, by bytes.
        case numericKey = "numeric-key"
        /// As Firebase's SDK orders the children of the request's query: by its `orderBy`
        /// (key, value or child, ties by key), by key without one. Only on a route with
        /// `firebase-query: true`.
        case query
    }
    package enum Conflict: String, Sendable, CaseIterable {
        case overwrite, keep, fail
    }

    package let keyField: String
    package let valueField: String
    package let order: Order
    package let conflict: Conflict

    package init(
        keyField: String = "objectId", valueField: String = "value", order: Order = .source,
        conflict: Conflict = .overwrite
    ) {
        self.keyField = keyField
        self.valueField = valueField
        self.order = order
        self.conflict = conflict
    }

    static func compile(_ argument: OperationArgument, _ context: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object(allowing: ["key", "value", "order", "conflict"])
        let key = try argument.option("key", in: object, default: "objectId")
        let value = try argument.option("value", in: object, default: "value")
        if key == value {
            // `{key: name, value: v}` would hold the same member twice.
            throw argument.error(
                "'key' and 'value' must name different fields", at: object["value"] == nil ? "key" : "value")
        }
        let order = try argument.option("order", in: object, default: "source", choices: Order.allCases.map(\.rawValue))
        if order == Order.query.rawValue, !context.firebaseQuery {
            throw argument.error(
                "`order: query` orders by the request's Firebase query: it needs `firebase-query: true` on a GET route, in the route's own transform",
                at: "order")
        }
        let conflict = try argument.option(
            "conflict", in: object, default: "overwrite", choices: Conflict.allCases.map(\.rawValue))
        return KeyedToArrayOperation(
            keyField: key, valueField: value, order: Order(rawValue: order)!, conflict: Conflict(rawValue: conflict)!)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        if order == .query, case .array(let elements) = value {
            // Firebase's array form orders by query like the object it stands for.
            value = .object(
                JSONObject(
                    elements.enumerated().compactMap { index, element in
                        element == .null ? nil : JSONMember(key: String(index), value: element)
                    }))
        }
        if case .null = value {
            value = .array([])
        } else if var object = value.takeObject() {
            var members: [JSONMember] = []
            swap(&members, &object.members)  // `members` is now the only reference
            switch order {
            case .source: break
            case .key: KeyOrder.sort(&members, numeric: false)
            case .numericKey: KeyOrder.sort(&members, numeric: true)
            case .query:
                let order = context.queryOrder
                members = QueryOrder.permutation(members.map(\.key), order: order) {
                    QueryOrder.orderValue(members[$0].value, order)
                }
                .map { members[$0] }
            }
            var records: [JSON] = []
            records.reserveCapacity(members.count)
            for i in members.indices {
                try convert(&members[i].value, key: members[i].key)
                records.append(members[i].value)
                members[i].value = .null
            }
            value = .array(records)
        } else if var elements = value.takeArray() {
            // Firebase's integer-keyed collection: position is the key, nulls are holes.
            var kept = 0
            for i in elements.indices {
                if case .null = elements[i] { continue }
                try convert(&elements[i], key: String(i))
                if kept != i { elements.swapAt(kept, i) }
                kept += 1
            }
            elements.removeLast(elements.count - kept)
            value = .array(elements)
        } else {
            throw PipelineError(
                code: "not-an-object",
                message: "keyed-to-array expects an object, an array or null, found \(value.kindName)",
                pointer: "")
        }
    }

    /// Turns one member into its array element, in place.
    @inline(__always)
    func convert(_ member: inout JSON, key: String) throws(PipelineError) {
        guard var record = member.takeObject() else {
            member = .object(
                JSONObject([JSONMember(key: keyField, value: .string(key)), JSONMember(key: valueField, value: member)])
            )
            return
        }
        if let existing = record.index(forKey: keyField) {
            switch conflict {
            case .overwrite: record.members[existing].value = .string(key)
            case .keep: break
            case .fail:
                throw PipelineError(
                    code: "key-conflict",
                    message: "record '\(key)' already has a '\(keyField)' field",
                    pointer: JSONPointer.appending(key: keyField, to: JSONPointer.appending(key: key, to: "")))
            }
        } else {
            record.members.insert(JSONMember(key: keyField, value: .string(key)), at: 0)
        }
        member = .object(record)
    }
}

/// Ordering of member names, through the same precomputed keys as `sort`.
enum KeyOrder {
    /// By UTF-8 bytes; with `numeric`, names that are JSON numbers come first in numeric
    /// order (as `sort` orders numbers before strings). Stable.
    static func sort(_ members: inout [JSONMember], numeric: Bool) {
        members = permutation(members.map(\.key), numeric: numeric).map { members[$0] }
    }

    /// The positions of `names` in sorted order.
    static func permutation(_ names: [String], numeric: Bool) -> [Int] {
        var keys = SortKeys(capacity: names.count)
        for name in names {
            if numeric, let number = JSONNumber(name) {
                keys.append(.number(number))
            } else {
                keys.append(.string(name))
            }
        }
        var order = Array(names.indices)
        order.sort { keys.precedes($0, $1) }
        return order
    }

    /// The positions of tape name nodes sorted by their UTF-8 bytes (what `permutation` gives
    /// without `numeric`), compared in place; nil when a name has an escape, so its text is
    /// not its bytes. Each name's first eight bytes, big-endian and zero-padded, decide most
    /// comparisons (push ids differ in their timestamp prefix); only equal prefixes compare the
    /// rest. Zero padding is exact: an unescaped name holds no NUL byte. Names of one object are
    /// unique, so any sort gives the same order.
    static func byteOrder(of names: [Int], in tape: JSONTape) -> [Int]? {
        // The first sixteen bytes as two big-endian words: push ids made close together share
        // their first eight (the time), so one word alone leaves most comparisons to memcmp.
        struct Key {
            var prefix: UInt64
            var next: UInt64
            var start: Int
            var count: Int
        }
        return tape.bytes.withUnsafeBufferPointer { bytes -> [Int]? in
            let base = bytes.baseAddress!
            var keys: [Key] = []
            keys.reserveCapacity(names.count)
            for name in names {
                if tape.isEscaped(name) { return nil }
                let text = tape.textRange(name)
                let start = text.lowerBound + 1
                let count = text.count - 2
                var prefix: UInt64 = 0
                for i in 0..<min(count, 8) { prefix |= UInt64(base[start + i]) << (56 - 8 * UInt64(i)) }
                var next: UInt64 = 0
                for i in 8..<max(8, min(count, 16)) { next |= UInt64(base[start + i]) << (120 - 8 * UInt64(i)) }
                keys.append(Key(prefix: prefix, next: next, start: start, count: count))
            }
            var order = Array(names.indices)
            keys.withUnsafeBufferPointer { keys in
                order.sort { a, b in
                    let x = keys[a]
                    let y = keys[b]
                    if x.prefix != y.prefix { return x.prefix < y.prefix }
                    if x.next != y.next { return x.next < y.next }
                    let shorter = min(x.count, y.count)
                    let common = shorter > 16 ? memcmp(base + x.start + 16, base + y.start + 16, shorter - 16) : 0
                    return common < 0 || (common == 0 && x.count < y.count)
                }
            }
            return order
        }
    }
}

// MARK: - On the tape

extension KeyedToArrayOperation {
    /// A keyed object on the tape becomes a record list: each record stays on the tape and
    /// gets its name as `keyField` when written. Records that are not objects, or already
    /// have a `keyField` member, are built and converted as the tree path does. Firebase's
    /// array form and anything that is not an object take the tree path.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
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
        if order == .key, let permutation = KeyOrder.byteOrder(of: names, in: tape) {
            names = permutation.map { names[$0] }
            records = permutation.map { records[$0] }
        } else if order == .query {
            let order = context.queryOrder
            let permutation = QueryOrder.permutation(names.map { tape.string($0) }, order: order) {
                QueryOrder.orderValue(names[$0] + 1, in: tape, order)
            }
            names = permutation.map { names[$0] }
            records = permutation.map { records[$0] }
        } else if order != .source {
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
