import ReshapeJSON

// Firebase's mixed-type order (`SortKeys`) read straight from a tape's nodes, so that a view's
// filters and sort compare a record's members without building them as `JSON` values: only a
// number that is no plain integer, or a string with escapes or longer than a key holds, is
// built, and then compared the `JSON` way.

extension SortKeys {
    /// Appends the key of the value at `node` (nil: missing), as `append(_: JSON?)` would for
    /// the value built.
    mutating func append(_ tape: JSONTape, _ node: Int?) {
        guard let node else { return append(exact: Key(rank: 0, fast: 0, fast2: 0, isExact: true)) }
        if let key = Self.exactKey(tape, node) {
            append(exact: key)
        } else {
            append(tape.materialize(node))
        }
    }

    /// The key of the value at `node` when the key alone orders it (the key `key(of:)` gives
    /// the value built); nil when its text or number is needed too.
    static func exactKey(_ tape: JSONTape, _ node: Int) -> Key? {
        var key = Key(rank: 0, fast: 0, fast2: 0, isExact: true)
        switch tape.kind(node) {
        case .null: break
        case .false: key.rank = 1
        case .true: key.rank = 2
        case .object: key.rank = 5
        case .array: key.rank = 6
        case .number:
            guard let value = plainInteger(tape, node) else { return nil }
            key.rank = 3
            key.fast = UInt64(bitPattern: value)
        case .string:
            // Unescaped text has no NUL byte (JSON escapes control characters).
            guard !tape.isEscaped(node) else { return nil }
            let range = tape.textRange(node)
            let count = range.count - 2
            guard count <= 16 else { return nil }
            key.rank = 4
            tape.bytes.withUnsafeBufferPointer { all in
                for index in 0..<count {
                    let byte = UInt64(all[range.lowerBound + 1 + index])
                    if index < 8 {
                        key.fast |= byte << (56 - 8 * index)
                    } else {
                        key.fast2 |= byte << (56 - 8 * (index - 8))
                    }
                }
            }
        }
        return key
    }

    /// A number node's value when its text is what `plainInteger(_: String)` reads: at most 19
    /// bytes, no fraction or exponent, and in range.
    static func plainInteger(_ tape: JSONTape, _ node: Int) -> Int64? {
        let range = tape.textRange(node)
        guard range.count <= 19 else { return nil }
        return tape.bytes.withUnsafeBufferPointer { all -> Int64? in
            var index = range.lowerBound
            let negative = all[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var value: Int64 = 0
            while index < range.upperBound {
                let digit = all[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
                guard !overflow, !overflow2 else { return nil }
                value = sum
                index += 1
            }
            return negative ? -value : value
        }
    }

    /// -1, 0 or 1: how the scalar at `node` orders against `wanted` (`compare`), with
    /// `wanted`'s key made once by the caller.
    static func compare(_ tape: JSONTape, _ node: Int, _ wanted: JSON, _ wantedKey: (Key, String, JSONNumber?)) -> Int {
        guard let key = exactKey(tape, node) else { return compare(tape.materialize(node), wanted) }
        let (y, yText, yNumber) = wantedKey
        if precedes(key, "", nil, y, yText, yNumber) { return -1 }
        return precedes(y, yText, yNumber, key, "", nil) ? 1 : 0
    }
}

/// A filter made ready for a tape: its values' keys made once, not once per record.
struct TapeFilter {
    let filter: ClientView.Filter
    private let keys: [(SortKeys.Key, String, JSONNumber?)]

    init(_ filter: ClientView.Filter) {
        self.filter = filter
        keys = filter.values.map { SortKeys.key(of: $0) }
    }

    /// Whether the value at `node` (nil: missing) passes: what `Filter.holds(for:)` says of the
    /// record with that value at the filter's path.
    func holds(_ tape: JSONTape, _ node: Int?) -> Bool {
        guard let node else { return filter.holds(nil) }
        let kind = tape.kind(node)
        switch kind {
        case .object: return filter.holds(.object(JSONObject()))
        case .array: return filter.holds(.array([]))
        default: break
        }
        let values = filter.values
        switch filter.op {
        case .equal: return SortKeys.compare(tape, node, values[0], keys[0]) == 0
        case .ne: return SortKeys.compare(tape, node, values[0], keys[0]) != 0
        case .in: return values.indices.contains { SortKeys.compare(tape, node, values[$0], keys[$0]) == 0 }
        case .exists: return (kind != .null) == (values[0] == .bool(true))
        case .prefix:
            guard kind == .string, case .string(var prefix) = values[0] else { return false }
            return tape.withString(node) { text in prefix.withUTF8 { text.starts(with: $0) } }
        case .gt, .gte, .lt, .lte:
            switch (kind, values[0]) {
            case (.number, .number), (.string, .string): break
            default: return false
            }
            let order = SortKeys.compare(tape, node, values[0], keys[0])
            switch filter.op {
            case .gt: return order > 0
            case .gte: return order >= 0
            case .lt: return order < 0
            default: return order <= 0
            }
        }
    }
}
