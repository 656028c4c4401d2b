import ReshapeJSON

/// `keyed-to-array`'s `order: query`: the records in the order Firebase's SDK gives the
/// children a query returned, for the request's `orderBy` (docs/firebase.md). Used by both
/// paths of the operation: the tree gives each member's value, the tape its node.
enum QueryOrder {
    /// The positions of the members named `names` in the query's order. `value(i)` is what
    /// orders member `i` (`orderValue`), only asked for when ordering by value or by a child.
    static func permutation(
        _ names: [String], order: FirebaseQuery.Order, value: (Int) -> JSON?
    ) -> [Int] {
        let keys = FirebaseKeys(names)
        var positions = Array(names.indices)
        switch order {
        case .key, .priority:
            // `$priority` never reaches a run: the proxy refuses it on routes that order by query.
            positions.sort { keys.precedes($0, $1) }
        case .value, .child:
            var values = SortKeys(capacity: names.count)
            for i in names.indices { values.append(value(i)) }
            positions.sort { a, b in
                if values.precedes(a, b) { return true }
                if values.precedes(b, a) { return false }
                return keys.precedes(a, b)
            }
        }
        return positions
    }

    /// The value that orders a member: itself (`$value`) or its child at the path, missing
    /// when the member has no such child. Objects and arrays tie (Firebase has no arrays:
    /// they are objects), so they are all ordered as an empty object.
    static func orderValue(_ value: JSON?, _ order: FirebaseQuery.Order) -> JSON? {
        var current = value
        if case .child(let path) = order {
            for segment in path {
                guard case .object(let object)? = current else { return nil }
                current = object[segment]
            }
        }
        switch current {
        case .object?, .array?: return .object(JSONObject())
        default: return current
        }
    }

    /// A tape node as the value that orders it: scalars as they are, containers as an empty
    /// object (they tie), so no record is built to be ordered.
    static func orderValue(_ node: Int, in tape: JSONTape, _ order: FirebaseQuery.Order) -> JSON? {
        var current = node
        if case .child(let path) = order {
            for segment in path {
                guard tape.kind(current) == .object else { return nil }
                var name = segment
                guard let child = name.withUTF8({ tape.member(current, named: $0) }) else { return nil }
                current = child
            }
        }
        switch tape.kind(current) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(tape.number(current))
        case .string: return .string(tape.string(current))
        case .array, .object: return .object(JSONObject())
        }
    }
}

/// Member names in Firebase's key order: names that are 32-bit integers first, numerically
/// (the same number written longer, `01` after `1`, later), then the others by their bytes
/// (Unicode code points).
struct FirebaseKeys {
    private let names: [String]
    private let integers: [Int64?]

    init(_ names: [String]) {
        self.names = names
        integers = names.map(Self.integer)
    }

    @inline(__always)
    func precedes(_ a: Int, _ b: Int) -> Bool {
        switch (integers[a], integers[b]) {
        case (let x?, let y?): return x != y ? x < y : names[a].utf8.count < names[b].utf8.count
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return names[a].utf8.lexicographicallyPrecedes(names[b].utf8)
        }
    }

    /// The name's value when it is a 32-bit integer as the SDK reads one: an optional `-`,
    /// then digits, at most ten after any leading zeros.
    static func integer(_ name: String) -> Int64? {
        var digits = Substring(name).utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        guard significant.count <= 10 else { return nil }
        var value: Int64 = 0
        for digit in significant { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }
        if negative { value = -value }
        return value >= Int64(Int32.min) && value <= Int64(Int32.max) ? value : nil
    }
}
