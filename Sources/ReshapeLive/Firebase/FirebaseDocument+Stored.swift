import ReshapeJSON

// The form Firebase stores a value in, exact comparison and depth: the document's helpers.

extension FirebaseDocument {
    /// What a `JSON` value is, for telling when the root changed kind.
    enum Kind: Equatable {
        case null
        case scalar
        case array
        case object

        init(_ value: JSON) {
            switch value {
            case .null: self = .null
            case .bool, .number, .string: self = .scalar
            case .array: self = .array
            case .object: self = .object
            }
        }
    }

    /// `value` as Firebase would store it: without `null` members and empty objects (at any
    /// depth), arrays without trailing `null`s, an element left empty becoming `null`; nil when
    /// nothing is left. Values already in that form (what Firebase sends) are returned as they
    /// are, after one walk that allocates nothing.
    static func stored(_ value: JSON) -> JSON? {
        if case .null = value { return nil }
        return isStored(value) ? value : pruned(value)
    }

    private static func isStored(_ value: JSON) -> Bool {
        switch value {
        case .null: return false
        case .bool, .number, .string: return true
        case .object(let object):
            return !object.isEmpty && object.members.allSatisfy { isStored($0.value) }
        case .array(let elements):
            guard let last = elements.last, isStored(last) else { return false }
            return elements.allSatisfy { element in
                if case .null = element { return true }
                return isStored(element)
            }
        }
    }

    private static func pruned(_ value: JSON) -> JSON? {
        switch value {
        case .null: return nil
        case .bool, .number, .string: return value
        case .object(let object):
            var kept = JSONObject()
            for member in object.members {
                if let child = pruned(member.value) { kept.members.append(JSONMember(key: member.key, value: child)) }
            }
            return kept.isEmpty ? nil : .object(kept)
        case .array(let elements):
            var kept = elements.map { pruned($0) ?? .null }
            while case .null? = kept.last { kept.removeLast() }
            return kept.isEmpty ? nil : .array(kept)
        }
    }

    /// Nesting levels of arrays and objects: 0 for a scalar, 1 for `{"a": 1}`.
    static func depth(_ value: JSON) -> Int {
        switch value {
        case .null, .bool, .number, .string: return 0
        case .object(let object): return 1 + (object.members.lazy.map { depth($0.value) }.max() ?? 0)
        case .array(let elements): return 1 + (elements.lazy.map(depth).max() ?? 0)
        }
    }

    /// True when `a` and `b` are spelled the same: same kinds, member names in the same order,
    /// strings with the same UTF-8 bytes, numbers with the same text. (`JSON`'s `==` is meaning,
    /// under which `1` equals `1.0`; a change of spelling is a change here.)
    static func same(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return sameBytes(a.text, b.text)
        case (.string(let a), .string(let b)): return sameBytes(a, b)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a.members, b.members).allSatisfy { sameBytes($0.key, $1.key) && same($0.value, $1.value) }
        default: return false
        }
    }

    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }
}
