import ReshapeJSON
import ReshapeProblem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Splicing re-normalized records into the answer a stream holds, and the patch for it.

extension RecordwiseNormalize {
    /// The records of `answer`, one per name of `names`, with the root members `changed` of
    /// `document` (after the event) normalized again: `answer` and `names` are changed in
    /// place and the patch from the old answer to the new one is returned. Nil, leaving both
    /// as they were, when only a whole run can tell (the members failed or were not named).
    func splice(
        _ changed: [String], of document: FirebaseDocument, into answer: inout JSON, names: inout [String]
    ) -> JSONPatch? {
        guard case .object(let root) = document.value else { return nil }
        let members = changed.compactMap { name in
            document.rootMember(named: name).map { JSONMember(key: name, value: $0) }
        }
        let records: [(name: String, record: JSON)]
        do throws(Problem) {
            guard let normalized = try self.members(members) else { return nil }
            records = normalized
        } catch {
            return nil
        }
        guard var elements = takeRecords(&answer) else { return nil }
        guard elements.count == names.count else {
            putRecords(elements, into: &answer)
            return nil
        }
        if changed.count == 1 {
            let patch = splice(changed[0], records.first?.record, root: root, into: &elements, names: &names)
            putRecords(elements, into: &answer)
            return patch.map { $0(answer) } ?? JSONPatch()
        }
        // Several members: each record is replaced on its own, and the patch compares the
        // whole answers, since the changes may lie far apart.
        var old = JSON.null
        putRecords(elements, into: &old)
        let removed = changed.compactMap { position(of: $0, in: names) }.sorted()
        for index in removed.reversed() {
            elements.remove(at: index)
            names.remove(at: index)
        }
        for (name, record) in records {
            let index = insertionIndex(of: name, in: names, root: root)
            elements.insert(record, at: index)
            names.insert(name, at: index)
        }
        putRecords(elements, into: &answer)
        return JSONPatch.difference(from: old, to: answer)
    }

    /// Puts the record of the member `name` (nil: it has none now) at its place in `elements`
    /// and `names`. The patch is returned as a function of the new answer, which is only
    /// whole again once the elements are back in it; nil when nothing changed.
    private func splice(
        _ name: String, _ record: JSON?, root: JSONObject, into elements: inout [JSON], names: inout [String]
    ) -> ((JSON) -> JSONPatch)? {
        let old = position(of: name, in: names)
        var removed: [JSON] = []
        let index: Int
        switch (old, record) {
        case (nil, nil):
            return nil
        case (let old?, let record?):
            index = old
            removed = [elements[old]]
            elements[old] = record
        case (let old?, nil):
            index = old
            removed = [elements.remove(at: old)]
            names.remove(at: old)
        case (nil, let record?):
            index = insertionIndex(of: name, in: names, root: root)
            elements.insert(record, at: index)
            names.insert(name, at: index)
        }
        let inserted = record == nil ? 0 : 1
        return { [wrap] answer in
            JSONPatch.difference(splicing: removed, at: index, inserted: inserted, in: answer, wrap: wrap)
        }
    }

    /// Where the record of `name` is in the answer, if it has one.
    private func position(of name: String, in names: [String]) -> Int? {
        switch order {
        case .byName:
            let index = Self.lowerBound(of: name, in: names)
            return index < names.count && JSON.sameBytes(names[index], name) ? index : nil
        case .asInDocument:
            return names.firstIndex { JSON.sameBytes($0, name) }
        }
    }

    /// Where a record for `name`, which has none in the answer, goes.
    private func insertionIndex(of name: String, in names: [String], root: JSONObject) -> Int {
        switch order {
        case .byName:
            return Self.lowerBound(of: name, in: names)
        case .asInDocument:
            // The document appends a new member: its record goes last, with no walk.
            if let last = root.members.last, JSON.sameBytes(last.key, name) { return names.count }
            // The answer's names are a subsequence of the document's: count those before `name`.
            var index = 0
            for member in root.members {
                if JSON.sameBytes(member.key, name) { break }
                if index < names.count && JSON.sameBytes(names[index], member.key) { index += 1 }
            }
            return index
        }
    }

    /// The first position in `names` (sorted by UTF-8 bytes) not before `name`.
    private static func lowerBound(of name: String, in names: [String]) -> Int {
        var low = 0
        var high = names.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(names[middle], name) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// True when `a` sorts before `b` by UTF-8 bytes, as `keyed-to-array` orders names.
    static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { a in
            b.withUTF8 { b in
                let common = min(a.count, b.count)
                let compared = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return compared < 0 || (compared == 0 && a.count < b.count)
            }
        }
    }

    /// The records of `answer`, moved out of it (so that they change in place).
    private func takeRecords(_ answer: inout JSON) -> [JSON]? {
        guard let wrap else { return Self.takeArray(&answer) }
        guard case .object(var object) = answer, object.count == 1, JSON.sameBytes(object.members[0].key, wrap) else {
            return nil
        }
        answer = .null
        guard let elements = Self.takeArray(&object.members[0].value) else {
            answer = .object(object)
            return nil
        }
        return elements
    }

    /// Puts records taken by `takeRecords` back.
    private func putRecords(_ elements: [JSON], into answer: inout JSON) {
        guard let wrap else {
            answer = .array(elements)
            return
        }
        answer = .object(JSONObject([JSONMember(key: wrap, value: .array(elements))]))
    }

    private static func takeArray(_ value: inout JSON) -> [JSON]? {
        guard case .array(let elements) = value else { return nil }
        value = .null
        return elements
    }
}
