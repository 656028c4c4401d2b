import ReshapeJSON

/// How the samples hold their records: what decides the collection steps `reshape infer`
/// proposes. All samples are one endpoint's answers, so they are classified together.
package enum RecordLayout: Equatable, Sendable {
    /// An object of records under id-like keys (or Firebase's array with `null` holes, or
    /// `null`/`{}` for an empty one): `keyed-to-array`. `nested`: each record is itself such
    /// a collection (devices by user, then by device id), with the inner keys' order.
    case keyed(order: String, nested: String?)
    /// A plain array of elements.
    case array
    /// One value (an object, a scalar).
    case single

    package static func classify(_ samples: [JSON]) -> RecordLayout {
        var keyed: [JSON] = []
        var arrays = 0
        var holes = 0
        var singles = 0
        for sample in samples {
            switch sample {
            case .null:
                continue  // Firebase's empty collection, or a missing record: fits any layout
            case .object(let object) where object.isEmpty || KeyedCollection.isKeyed(object):
                keyed.append(sample)
            case .array(let elements) where KeyedCollection.hasHoles(elements):
                holes += 1
                keyed.append(sample)
            case .array:
                arrays += 1
                keyed.append(sample)
            default:
                singles += 1
            }
        }
        if singles > 0 { return .single }
        // Only plain arrays: an array answer. With keyed samples too, the arrays are
        // Firebase's form of integer keys without holes: keyed.
        if arrays > 0 && arrays == keyed.count { return .array }
        if keyed.isEmpty && samples.allSatisfy({ if case .null = $0 { true } else { false } }) && !samples.isEmpty {
            return .keyed(order: "key", nested: nil)
        }
        let records = keyed.flatMap(KeyedCollection.records)
        let order = KeyedCollection.order(of: keyed.flatMap(KeyedCollection.keys))
        // Nested when every record is a collection itself, and at least one is not empty.
        let nested =
            !records.isEmpty && records.allSatisfy(KeyedCollection.isCollection)
            && records.contains { KeyedCollection.records($0).count > 0 }
        return .keyed(
            order: order, nested: nested ? KeyedCollection.order(of: records.flatMap(KeyedCollection.keys)) : nil)
    }
}

/// The tests that tell a keyed collection from a record with object members.
enum KeyedCollection {
    /// Id-like member names, or (for names like user names) members that all share most of
    /// their fields. A record such as `{address: {...}, profile: {...}}` has word keys and
    /// members of different shapes, so it is not a collection.
    static func isKeyed(_ object: JSONObject) -> Bool {
        let values = object.members.map(\.value)
        guard values.contains(where: { $0.record != nil }) else { return false }
        if object.members.allSatisfy({ isIdLike($0.key) }) { return true }
        guard object.count >= 2, values.allSatisfy({ $0.record != nil }) else { return false }
        let fieldSets = values.map { Set($0.record!.keys) }
        let union = fieldSets.reduce(into: Set<String>()) { $0.formUnion($1) }
        let common = fieldSets.dropFirst().reduce(fieldSets[0]) { $0.intersection($1) }
        return !common.isEmpty && common.count * 2 >= union.count
    }

    /// An array with at least one `null` and otherwise only objects: Firebase's integer keys.
    static func hasHoles(_ elements: [JSON]) -> Bool {
        elements.contains { if case .null = $0 { true } else { false } }
            && elements.contains { $0.record != nil }
            && elements.allSatisfy { if case .null = $0 { true } else { $0.record != nil } }
    }

    /// Whether a record is a collection itself (for nested collections); `{}` and `null` are empty ones.
    static func isCollection(_ value: JSON) -> Bool {
        switch value {
        case .null: return true
        case .object(let object): return object.isEmpty || isKeyed(object)
        case .array(let elements): return hasHoles(elements)
        default: return false
        }
    }

    static func records(_ value: JSON) -> [JSON] {
        switch value {
        case .object(let object): return object.members.map(\.value)
        case .array(let elements): return elements.filter { if case .null = $0 { false } else { true } }
        default: return []
        }
    }

    static func keys(_ value: JSON) -> [String] {
        switch value {
        case .object(let object): return object.keys
        case .array(let elements): return elements.indices.map(String.init)
        default: return []
        }
    }

    /// `numeric-key` when every key is an integer (Firebase's array form included), else
    /// `key`: push ids then come in creation order, and other ids in a stable order (the
    /// order of an object's members is nothing an API should promise).
    static func order(of keys: [String]) -> String {
        !keys.isEmpty && keys.allSatisfy(isInteger) ? "numeric-key" : "key"
    }

    static func isInteger(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 15
            && key.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Push ids (`-N...`), integers, UUIDs and uid-like tokens (letters and digits mixed, or
    /// long): names a program made, not a person.
    static func isIdLike(_ key: String) -> Bool {
        if isInteger(key) { return true }
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ isTokenByte($0) }) else { return false }
        if bytes[0] == UInt8(ascii: "-") && bytes.count >= 3 { return true }  // push id
        let hasDigit = bytes.contains { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let hasLetter = bytes.contains { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
        return (hasDigit && hasLetter) || bytes.count >= 16
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
