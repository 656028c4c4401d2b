import ReshapeJSON

extension JSONPatch {
    /// The operations that turn `old` into `new` exactly: applied in order by an RFC 6902
    /// implementation whose objects keep insertion order (Python's `jsonpatch`, checked in the
    /// tests), the result serializes to the same bytes as `new` (same members in the same order,
    /// numbers as spelled). JavaScript objects list integer-like member names ("7") first
    /// whatever the order, in a parsed snapshot as much as in a patched one. Small where the change is small: one changed record of a long
    /// array is operations on that record, not on the array.
    ///
    /// - Values compare by spelling (`1` and `1.0` differ); a scalar that differs, or a value
    ///   whose kind changed, is one `replace`. Identical documents give an empty patch.
    /// - Objects get per-member operations (removes, then changes, then adds) only when the
    ///   members both sides have keep their relative order and every new member comes after them
    ///   in `new`, because `add` appends and `remove` keeps the others' order in the
    ///   implementations clients use. Otherwise the object is replaced whole.
    /// - Arrays: the identical prefix and suffix are skipped; the elements between are paired by
    ///   position and compared, then the extra old ones removed (highest index first) or the
    ///   extra new ones added at their index.
    /// - Where the operations for an array or object number two or more and would serialize
    ///   longer than one `replace` of that value, the value is replaced whole.
    public static func difference(from old: JSON, to new: JSON) -> JSONPatch {
        var differ = PatchDiffer()
        differ.compare(old, new)
        return JSONPatch(differ.operations)
    }

    /// `difference(from: old, to: new)` when `new` is `old` but for one run of elements of its
    /// record array (`new` itself, or its only member `wrap`): the old elements `removed` were
    /// at `index`, where `new` has `inserted` elements instead, and every other element is the
    /// same value on both sides. The same operations, without comparing the elements known to
    /// be the same: the cost of the change, not of the array.
    public static func difference(
        splicing removed: [JSON], at index: Int, inserted: Int, in new: JSON, wrap: String?
    ) -> JSONPatch {
        var differ = PatchDiffer()
        differ.compareSplice(removed, at: index, inserted: inserted, in: new, wrap: wrap)
        return JSONPatch(differ.operations)
    }
}

/// The walk behind `JSONPatch.difference`: the operations so far, their serialized size, and
/// the path of the value being compared (kept as a stack so that unchanged values build none).
private struct PatchDiffer {
    var operations: [JSONPatch.Operation] = []
    private var size = 0
    private var path: [String] = []

    mutating func compare(_ old: JSON, _ new: JSON) {
        if case .array(let oldElements) = old, case .array(let newElements) = new {
            compare(oldElements, newElements)
        } else if case .object(let oldObject) = old, case .object(let newObject) = new {
            compare(oldObject, newObject, whole: new)
        } else if !old.isIdentical(to: new) {
            emit(.replace(pointer, new))
        }
    }

    private mutating func compare(_ old: [JSON], _ new: [JSON]) {
        compareElements(old.count, { old[$0] }, new, samePrefix: 0, sameSuffix: 0)
    }

    /// What `compare` does for the old answer `new` was spliced from (see
    /// `JSONPatch.difference(splicing:at:inserted:in:wrap:)`), the old array read through the
    /// new one: before `index` and after the run, its elements are the new array's.
    mutating func compareSplice(_ removed: [JSON], at index: Int, inserted: Int, in new: JSON, wrap: String?) {
        var list = new
        if let wrap, case .object(let object) = new, let inner = object[wrap] { list = inner }
        guard case .array(let elements) = list else { preconditionFailure("a splice of records that are not an array") }
        let end = index + inserted
        let shift = removed.count - inserted
        let old = { (i: Int) -> JSON in
            i < index ? elements[i] : i < index + removed.count ? removed[i - index] : elements[i - shift]
        }
        let sameSuffix = elements.count - end
        guard let wrap else {
            compareElements(elements.count + shift, old, elements, samePrefix: index, sameSuffix: sameSuffix)
            return
        }
        // As `compare` walks `{wrap: old}` against `{wrap: new}`: one common member, compared.
        let mark = (operations.count, size)
        path.append(wrap)
        compareElements(elements.count + shift, old, elements, samePrefix: index, sameSuffix: sameSuffix)
        path.removeLast()
        replaceIfShorter(since: mark, with: new)
    }

    /// Compares arrays, knowing that their first `samePrefix` and last `sameSuffix` elements
    /// are identical, which it then does not compare again. The walk and its operations are
    /// the same whatever it knows.
    private mutating func compareElements(
        _ oldCount: Int, _ old: (Int) -> JSON, _ new: [JSON], samePrefix: Int, sameSuffix: Int
    ) {
        let mark = (operations.count, size)
        let shorter = min(oldCount, new.count)
        var start = min(samePrefix, shorter)
        while start < shorter && old(start).isIdentical(to: new[start]) { start += 1 }
        var oldEnd = oldCount
        var newEnd = new.count
        // The known suffix is skipped as far as the comparing walk would go: not below `start`.
        let skipped = max(0, min(sameSuffix, oldEnd - start, newEnd - start))
        oldEnd -= skipped
        newEnd -= skipped
        while oldEnd > start && newEnd > start && old(oldEnd - 1).isIdentical(to: new[newEnd - 1]) {
            oldEnd -= 1
            newEnd -= 1
        }
        let paired = min(oldEnd, newEnd) - start
        for i in start..<(start + paired) {
            path.append(String(i))
            compare(old(i), new[i])
            path.removeLast()
        }
        // Removing from the highest index down leaves the lower indices where they were.
        for i in stride(from: oldEnd - 1, through: start + paired, by: -1) {
            path.append(String(i))
            emit(.remove(pointer))
            path.removeLast()
        }
        // Each add lands right after the previous one, before the identical suffix.
        for i in (start + paired)..<newEnd {
            path.append(String(i))
            emit(.add(pointer, new[i]))
            path.removeLast()
        }
        replaceIfShorter(since: mark, with: .array(new))
    }

    private mutating func compare(_ old: JSONObject, _ new: JSONObject, whole: JSON) {
        let mark = (operations.count, size)
        // For each member of `new`, where `old` has it; nil for a new member.
        var oldIndices: [Int?] = []
        oldIndices.reserveCapacity(new.count)
        var kept = [Bool](repeating: false, count: old.count)
        let names = MemberIndex(old)
        var lastKept = -1
        var sawNew = false
        for (j, member) in new.members.enumerated() {
            let i = names.index(of: member.key, near: j)
            if let i {
                // A common member out of the old order, or after a new one, cannot be reached
                // with adds that append: replace the object.
                guard i > lastKept && !sawNew else {
                    emit(.replace(pointer, whole))
                    return
                }
                lastKept = i
                kept[i] = true
            } else {
                sawNew = true
            }
            oldIndices.append(i)
        }
        for (i, member) in old.members.enumerated() where !kept[i] {
            path.append(member.key)
            emit(.remove(pointer))
            path.removeLast()
        }
        for (j, member) in new.members.enumerated() {
            guard let i = oldIndices[j] else { continue }
            path.append(member.key)
            compare(old.members[i].value, member.value)
            path.removeLast()
        }
        for (j, member) in new.members.enumerated() where oldIndices[j] == nil {
            path.append(member.key)
            emit(.add(pointer, member.value))
            path.removeLast()
        }
        replaceIfShorter(since: mark, with: whole)
    }

    private var pointer: JSONPointer { JSONPointer(tokens: path) }

    private mutating func emit(_ operation: JSONPatch.Operation) {
        operations.append(operation)
        size += operation.serializedSize()
    }

    /// Replaces the operations emitted since `mark` (two or more) by one `replace` of `value`
    /// at the current path when that serializes shorter.
    private mutating func replaceIfShorter(since mark: (count: Int, size: Int), with value: JSON) {
        guard operations.count - mark.count >= 2 else { return }
        let runSize = size - mark.size
        let replacement = JSONPatch.Operation.replace(pointer, value)
        guard replacement.serializedSize(limit: runSize) < runSize else { return }
        operations.removeSubrange(mark.count...)
        size = mark.size
        emit(replacement)
    }
}

/// Finds an old object's members by name (UTF-8 bytes, as JSON compares names): by position
/// first, since records mostly keep their order, then by scanning, or by hashing in large objects.
private struct MemberIndex {
    let object: JSONObject
    let byName: [Name: Int]?

    init(_ object: JSONObject) {
        self.object = object
        guard object.count > 32 else {
            byName = nil
            return
        }
        var byName: [Name: Int] = [:]
        byName.reserveCapacity(object.count)
        // The first of duplicate names wins, as `JSONObject.index(forKey:)` has it.
        for (i, member) in object.members.enumerated() where byName[Name(member.key)] == nil {
            byName[Name(member.key)] = i
        }
        self.byName = byName
    }

    func index(of name: String, near position: Int) -> Int? {
        if position < object.count && JSON.sameBytes(object.members[position].key, name) { return position }
        if let byName { return byName[Name(name)] }
        return object.members.firstIndex { JSON.sameBytes($0.key, name) }
    }

    /// A member name hashed and compared by its UTF-8 bytes.
    struct Name: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: Name, b: Name) -> Bool { JSON.sameBytes(a.text, b.text) }
        func hash(into hasher: inout Hasher) {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}
