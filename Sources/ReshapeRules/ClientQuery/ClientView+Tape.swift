import ReshapeJSON

/// A view made on a tape, as the server sends it: the answer's bytes with the page in place of
/// its array, and what the page headers say.
package struct TapeViewOutcome: Sendable {
    /// The view's bytes: exactly `apply(to:)`'s body serialized. The answer's own bytes when it
    /// holds no array at the rule's `array` (`total` nil).
    package var body: [UInt8]
    package var total: Int?
    package var nextCursor: String?
}

extension ClientView {
    /// The view of an answer parsed to a tape, as the server makes it: the members the filters,
    /// sort and key read are compared on the tape's nodes, and the page's records are written
    /// from the tape's bytes (copies of canonical text, cut to `fields`); nothing is built but
    /// the odd value no key orders alone. The same view as `apply(to:)` of the same answer.
    package func apply(toTape tape: JSONTape, rule: ClientQueryRule, fingerprint: String) throws(ClientQueryError)
        -> TapeViewOutcome
    {
        guard let array = Self.node(at: rule.array.tokens[...], in: tape, tape.root), tape.kind(array) == .array else {
            return TapeViewOutcome(body: tape.bytes, total: nil, nextCursor: nil)
        }
        let records = TapeRecords(tape, array: array, view: self, keyMember: rule.keyMember)
        let selection = try select(records, rule: rule, fingerprint: fingerprint)
        var writer = TapeViewWriter(
            tape: tape, fields: fields, keyMember: rule.keyMember, page: selection.page.map { records.elements[$0] })
        writer.write(tape.root, replacing: rule.array.tokens[...])
        return TapeViewOutcome(body: writer.output, total: selection.total, nextCursor: selection.next)
    }

    /// The node at a pointer's tokens (object members by name, array elements by index).
    static func node(at tokens: ArraySlice<String>, in tape: JSONTape, _ start: Int) -> Int? {
        var current = start
        for token in tokens {
            switch tape.kind(current) {
            case .object:
                var name = token
                guard let member = name.withUTF8({ tape.member(current, named: $0) }) else { return nil }
                current = member
            case .array:
                guard let index = JSON.arrayIndex(token), index < tape.count(current) else { return nil }
                var found: Int?
                tape.forEachElement(current) { position, element in if position == index { found = element } }
                guard let found else { return nil }
                current = found
            default:
                return nil
            }
        }
        return current
    }
}

/// The records of an answer's tape, read as `select` needs them: for each record, the node of
/// each member the view reads (a filter's, a sort key's, the key), found once.
struct TapeRecords: ViewRecords {
    let tape: JSONTape
    /// The records' nodes, in the answer's order.
    let elements: [Int]
    private let filters: [TapeFilter]
    /// Per record, the node at each of `paths` (-1: missing), `paths.count` to a record.
    private let found: [Int]
    private let paths: Int
    /// Where in a record's `found` each filter's, each sort key's and the key's node is.
    private let filterSlots: [Int]
    private let sortSlots: [Int]
    private let keySlot: Int?

    init(_ tape: JSONTape, array: Int, view: ClientView, keyMember: String?) {
        self.tape = tape
        var paths: [[String]] = []
        func slot(_ path: [String]) -> Int {
            if let index = paths.firstIndex(of: path) { return index }
            paths.append(path)
            return paths.count - 1
        }
        filterSlots = view.filters.map { slot($0.path) }
        sortSlots = view.sort.map { slot($0.path) }
        keySlot = keyMember.map { slot([$0]) }
        filters = view.filters.map(TapeFilter.init)
        self.paths = paths.count
        // The paths' names as ranges of one byte array, so the loop over the records reads
        // plain integers and bytes (nested arrays would be retained and released per record).
        var text: [UInt8] = []
        var names: [Range<Int>] = []
        var pathNames: [Range<Int>] = []
        for path in paths {
            let first = names.count
            for name in path {
                names.append(text.count..<text.count + name.utf8.count)
                text += name.utf8
            }
            pathNames.append(first..<names.count)
        }
        var elements: [Int] = []
        var found: [Int] = []
        elements.reserveCapacity(tape.count(array))
        found.reserveCapacity(tape.count(array) * paths.count)
        text.withUnsafeBufferPointer { text in
            tape.forEachElement(array) { _, element in
                elements.append(element)
                for path in pathNames {
                    var current = element
                    for name in path {
                        guard tape.kind(current) == .object,
                            let member = tape.member(current, named: UnsafeBufferPointer(rebasing: text[names[name]]))
                        else {
                            current = -1
                            break
                        }
                        current = member
                    }
                    // Missing where a name is missing or a value not an object, as
                    // `ClientView.value(at:in:)` finds it in a built record.
                    found.append(current)
                }
            }
        }
        self.elements = elements
        self.found = found
    }

    private func node(_ slot: Int, of record: Int) -> Int? {
        let node = found[record * paths + slot]
        return node < 0 ? nil : node
    }

    var count: Int { elements.count }

    func passes(_ filter: Int, _ record: Int) -> Bool {
        filters[filter].holds(tape, node(filterSlots[filter], of: record))
    }

    func appendSortKey(_ sortKey: Int, of record: Int, to keys: inout SortKeys) {
        keys.append(tape, node(sortSlots[sortKey], of: record))
    }

    func sortValue(_ sortKey: Int, of record: Int) -> JSON? {
        guard let node = node(sortSlots[sortKey], of: record) else { return nil }
        switch tape.kind(node) {
        case .object: return .object(JSONObject())
        case .array: return .array([])
        default: return tape.materialize(node)
        }
    }

    func key(of record: Int) -> String? {
        guard let keySlot, let node = node(keySlot, of: record), tape.kind(node) == .string else { return nil }
        return tape.string(node)
    }

    func hasKey(_ record: Int, _ wanted: String) -> Bool {
        guard let keySlot, let node = node(keySlot, of: record), tape.kind(node) == .string else { return false }
        var wanted = wanted
        return wanted.withUTF8 { tape.stringEquals(node, $0) }
    }
}
