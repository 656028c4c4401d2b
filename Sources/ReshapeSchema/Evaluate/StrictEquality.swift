import ReshapeJSON

/// JSON Schema equality (`const`, `enum`, `uniqueItems`): like `JSON ==` (numbers by value,
/// objects ignoring member order) except that strings compare by code points. Swift's
/// `String ==` treats canonically equivalent strings ("é" and "e" + U+0301) as equal;
/// JSON Schema does not.
enum StrictEquality {
    static func equal(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            return x.members.allSatisfy { member in
                y.members.contains { $0.key.utf8.elementsEqual(member.key.utf8) && equal($0.value, member.value) }
            }
        default: return a == b
        }
    }

    /// Index of the first element equal to an earlier one, or nil. Hashing groups candidates
    /// (its equality is looser, never stricter), then candidates are compared strictly.
    static func firstDuplicate(in elements: [JSON]) -> Int? {
        var buckets: [JSON: [Int]] = [:]
        buckets.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            if let earlier = buckets[element] {
                if earlier.contains(where: { equal(elements[$0], element) }) { return i }
                buckets[element]!.append(i)
            } else {
                buckets[element] = [i]
            }
        }
        return nil
    }
}
