// How Firebase stores values, on DemoValue: what a write leaves behind and where paths lead.
//
// Firebase keeps no `null` and no empty object: deleting the last child of a node deletes the
// node. It has no arrays either, only keys, but answers a location keyed 0, 1, ... as an array,
// so the demo keeps arrays (`/scores`) as long as a write lets it:
// - a canonical index ("0", "7") sets or deletes that element in place, and the index one past
//   the end appends; a deleted element becomes `null` (a GET shows a missing key so), trailing
//   `null`s go, and an array left with no elements is deleted like an empty object;
// - any other name that sets a value turns the array into the object Firebase holds, keyed
//   "0", "1", ... without its `null`s; deleting such a name changes nothing.
// A scalar on the way to a value being set is replaced by an object; deleting below one
// changes nothing.

extension DemoValue {
    /// The value at a Firebase path (decoded segments, empty ones ignored); nil when missing.
    func value(at path: [String]) -> DemoValue? {
        var value = self
        for segment in path where !segment.isEmpty {
            guard let next = value.child(segment) else { return nil }
            value = next
        }
        if case .null = value { return nil }
        return value
    }

    /// This value as Firebase stores it: no `null` members, no empty objects or arrays, arrays
    /// without trailing `null`s; nil when nothing is left.
    var stored: DemoValue? {
        switch self {
        case .null: return nil
        case .bool, .number, .string: return self
        case .object(let members):
            let kept = members.compactMap { name, value in value.stored.map { (name, $0) } }
            return kept.isEmpty ? nil : .object(kept)
        case .array(let elements):
            var kept = elements.map { $0.stored ?? .null }
            while case .null? = kept.last { kept.removeLast() }
            return kept.isEmpty ? nil : .array(kept)
        }
    }

    /// This value (nil: nothing) after setting `path` to `new`, already in stored form (nil
    /// deletes); nil when nothing is left. Only the nodes along `path` are rebuilt.
    static func setting(_ node: DemoValue?, at path: ArraySlice<String>, to new: DemoValue?) -> DemoValue? {
        guard let token = path.first else { return new }
        let rest = path.dropFirst()
        switch node {
        case .object(var members)?:
            let index = members.firstIndex { $0.0 == token }
            let child = setting(index.map { members[$0].1 }, at: rest, to: new)
            switch (index, child) {
            case (let index?, let child?): members[index].1 = child
            case (let index?, nil): members.remove(at: index)
            case (nil, let child?): members.append((token, child))
            case (nil, nil): break
            }
            return members.isEmpty ? nil : .object(members)
        case .array(var elements)?:
            guard let index = arrayIndex(token, count: elements.count) else {
                guard new != nil else { return node }
                return setting(.object(keyed(elements)), at: path, to: new)
            }
            var existing: DemoValue? = index < elements.count ? elements[index] : nil
            if case .null? = existing { existing = nil }
            let child = setting(existing, at: rest, to: new)
            if index < elements.count {
                elements[index] = child ?? .null
            } else if let child {
                elements.append(child)
            }
            while case .null? = elements.last { elements.removeLast() }
            return elements.isEmpty ? nil : .array(elements)
        default:
            // Nothing, or a scalar: a set replaces it with an object; a delete changes nothing.
            guard new != nil else { return node }
            return setting(.object([]), at: path, to: new)
        }
    }

    /// Whether two values (nil: nothing) are written the same, member order included.
    static func same(_ a: DemoValue?, _ b: DemoValue?) -> Bool {
        a.map { $0.text() } == b.map { $0.text() }
    }

    /// The element `token` names in an array of `count` elements (`count` itself appends), or nil
    /// when it is not a canonical decimal index in `0...count`.
    private static func arrayIndex(_ token: String, count: Int) -> Int? {
        guard let index = Int(token), index >= 0, index <= count, String(index) == token else { return nil }
        return index
    }

    /// An array as the object Firebase holds for it: keyed by index, without its `null`s.
    private static func keyed(_ elements: [DemoValue]) -> [(String, DemoValue)] {
        elements.enumerated().compactMap { index, element in
            if case .null = element { return nil }
            return (String(index), element)
        }
    }
}
