import ReshapeJSON

/// A view of one answer: the records matching, sorted, one page of them, with the members
/// asked for; what the page headers say.
package struct ViewOutcome: Sendable {
    /// The answer with its array replaced by the view's records (same wrapper).
    package var body: JSON
    /// Records matching the filters (`Reshape-Total-Count`); nil when the answer held no array
    /// at the rule's `array` (a `null` body, an error's), which is sent unchanged.
    package var total: Int?
    /// The next page's cursor while more records remain.
    package var nextCursor: String?
}

extension ClientView {
    /// What a cursor is bound to: the route's rules, the filters and the sort.
    func binding(fingerprint: String) -> String {
        fingerprint + "\n" + filters.map(\.canonical).sorted().joined(separator: "&") + "\n"
            + sort.map(\.canonical).joined(separator: ",")
    }

    /// Refuses a cursor that is not one of this route's pages for the view's filters and sort.
    /// Its digest depends on neither the answer nor its records, so the server checks it as the
    /// request is routed, before anything is looked up or fetched.
    package func checkCursor(fingerprint: String) throws(ClientQueryError) {
        _ = try decodedCursor(binding: binding(fingerprint: fingerprint))
    }

    private func decodedCursor(binding: String) throws(ClientQueryError) -> ViewCursor? {
        guard let text = cursor else { return nil }
        guard let decoded = ViewCursor.decode(text, binding: binding, count: sort.count) else {
            throw .cursor(
                "the cursor is not one of this route's pages for these filters and sort "
                    + "(corrupted, or made before the route's rules changed)")
        }
        return decoded
    }

    /// The view of `answer`: filtered (every filter holds), sorted (stable, ties in the
    /// answer's order), paged from `cursor`, and cut to `fields`. A cursor that is not one of
    /// this route, filters and sort is `bad-cursor`.
    package func apply(to answer: JSON, rule: ClientQueryRule, fingerprint: String) throws(ClientQueryError)
        -> ViewOutcome
    {
        guard case .array(let records)? = answer[rule.array] else {
            return ViewOutcome(body: answer, total: nil, nextCursor: nil)
        }
        let selection = try select(records, rule: rule, fingerprint: fingerprint)
        var page = selection.page.map { records[$0] }
        if let fields { page = page.map { Self.project($0, fields, keeping: rule.keyMember) } }
        let body = Self.replacing(rule.array.tokens[...], in: answer, with: .array(page))
        return ViewOutcome(body: body, total: selection.total, nextCursor: selection.next)
    }

    /// The view of an answer parsed to a tape, as the server makes it: only the members the
    /// filters, sort and key read are taken out of each record, and only the page's records
    /// are built whole. The same view as `apply(to:)` of the same answer.
    package func apply(toTape tape: JSONTape, rule: ClientQueryRule, fingerprint: String) throws(ClientQueryError)
        -> ViewOutcome
    {
        guard let array = Self.node(at: rule.array.tokens[...], in: tape, tape.root), tape.kind(array) == .array else {
            return ViewOutcome(body: tape.materialize(tape.root), total: nil, nextCursor: nil)
        }
        var paths = filters.map(\.path) + sort.map(\.path)
        if let key = rule.keyMember { paths.append([key]) }
        var nodes: [Int] = []
        var records: [JSON] = []
        nodes.reserveCapacity(tape.count(array))
        records.reserveCapacity(tape.count(array))
        tape.forEachElement(array) { _, element in
            nodes.append(element)
            records.append(Self.partial(element, paths, in: tape))
        }
        let selection = try select(records, rule: rule, fingerprint: fingerprint)
        var page = selection.page.map { tape.materialize(nodes[$0]) }
        if let fields { page = page.map { Self.project($0, fields, keeping: rule.keyMember) } }
        let body = Self.replacing(rule.array.tokens[...], in: tape, tape.root, with: .array(page))
        return ViewOutcome(body: body, total: selection.total, nextCursor: selection.next)
    }

    /// The positions of the page's records among `records`, how many match, and the next
    /// page's cursor. `records` need only hold the members the filters, sort and key read.
    private func select(_ records: [JSON], rule: ClientQueryRule, fingerprint: String) throws(ClientQueryError)
        -> (page: [Int], total: Int, next: String?)
    {
        let binding = binding(fingerprint: fingerprint)
        let cursor = try decodedCursor(binding: binding)
        let matching =
            filters.isEmpty
            ? Array(records.indices)
            : records.indices.filter { index in filters.allSatisfy { $0.holds(for: records[index]) } }
        let order = order(matching.map { records[$0] })
        let sorted = order.map { records[matching[$0]] }
        let start = cursor.map { startIndex(after: $0, in: sorted, key: rule.keyMember) } ?? 0
        let end = limit.map { min(sorted.count, start + $0) } ?? sorted.count
        let page = order[min(start, end)..<end].map { matching[$0] }
        var next: String?
        if end < sorted.count, end > start {
            next = cursorAfter(sorted[end - 1], at: end - 1, in: sorted, key: rule.keyMember).encoded(binding: binding)
        }
        return (page, sorted.count, next)
    }

    /// The positions of `records` in the view's order: by each sort key in turn (`-`:
    /// descending), ties in their order in the answer.
    private func order(_ records: [JSON]) -> [Int] {
        var order = Array(records.indices)
        guard !sort.isEmpty, records.count > 1 else { return order }
        let keys = sort.map { key in
            var keys = SortKeys(capacity: records.count)
            for record in records { keys.append(Self.value(at: key.path, in: record)) }
            return keys
        }
        let descending = sort.map(\.descending)
        if keys.count == 1 {
            // One key, the common case: no per-comparison loop over the keys.
            let key = keys[0]
            let flip = descending[0]
            order.sort { a, b in
                if key.precedes(a, b) { return !flip }
                if key.precedes(b, a) { return flip }
                return a < b
            }
            return order
        }
        order.sort { a, b in
            for index in keys.indices {
                if keys[index].precedes(a, b) { return !descending[index] }
                if keys[index].precedes(b, a) { return descending[index] }
            }
            return a < b
        }
        return order
    }

    /// The record at `node` with only the members at `paths`: scalars as they are, objects and
    /// arrays empty (only their kind orders or matches them).
    static func partial(_ node: Int, _ paths: [[String]], in tape: JSONTape) -> JSON {
        guard tape.kind(node) == .object else { return tape.materialize(node) }
        var record = JSON.object(JSONObject())
        for path in paths {
            guard let found = Self.node(at: path[...], in: tape, node) else { continue }
            let value: JSON
            switch tape.kind(found) {
            case .object: value = .object(JSONObject())
            case .array: value = .array([])
            default: value = tape.materialize(found)
            }
            record = inserting(value, at: path[...], into: record)
        }
        return record
    }

    private static func inserting(_ value: JSON, at path: ArraySlice<String>, into record: JSON) -> JSON {
        guard let name = path.first, case .object(var object) = record else { return record }
        if path.count == 1 {
            object[name] = value
        } else {
            object[name] = inserting(value, at: path.dropFirst(), into: object[name] ?? .object(JSONObject()))
        }
        return .object(object)
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

    /// The value at `node` built whole, but for the value at `tokens`, which is `new`.
    static func replacing(_ tokens: ArraySlice<String>, in tape: JSONTape, _ node: Int, with new: JSON) -> JSON {
        guard let token = tokens.first else { return new }
        switch tape.kind(node) {
        case .object:
            var members: [JSONMember] = []
            members.reserveCapacity(tape.count(node))
            var replaced = false
            tape.forEachMember(node) { name, value in
                let key = tape.string(name)
                if !replaced, key == token {
                    replaced = true
                    members.append(
                        JSONMember(key: key, value: replacing(tokens.dropFirst(), in: tape, value, with: new)))
                } else {
                    members.append(JSONMember(key: key, value: tape.materialize(value)))
                }
            }
            return .object(JSONObject(members))
        case .array:
            let index = JSON.arrayIndex(token)
            var items: [JSON] = []
            tape.forEachElement(node) { position, element in
                items.append(
                    position == index
                        ? replacing(tokens.dropFirst(), in: tape, element, with: new) : tape.materialize(element))
            }
            return .array(items)
        default:
            return tape.materialize(node)
        }
    }

    /// -1, 0, 1: how `record` orders against a cursor's sort values, in the view's order.
    private func compare(_ record: JSON, _ values: [JSON]) -> Int {
        for (index, key) in sort.enumerated() {
            let order = SortKeys.compare(Self.value(at: key.path, in: record), values[index])
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }

    /// Where the page after `cursor` starts: after its record, found by key, if it is still
    /// there with the same sort values; otherwise at the first record after the cursor's place
    /// (among equal sort values: after its key in Firebase's key order, or past `ties` records).
    private func startIndex(after cursor: ViewCursor, in records: [JSON], key: String?) -> Int {
        if let wanted = cursor.key, let key,
            let index = records.firstIndex(where: { Self.key(of: $0, key) == wanted }),
            compare(records[index], cursor.values) == 0
        {
            return index + 1
        }
        var tiesSeen = 0
        for (index, record) in records.enumerated() {
            let order = compare(record, cursor.values)
            if order > 0 { return index }
            guard order == 0 else { continue }
            if let wanted = cursor.key, let key, let name = Self.key(of: record, key) {
                if FirebaseKeys([wanted, name]).precedes(0, 1) { return index }
            } else {
                if tiesSeen > cursor.ties { return index }
                tiesSeen += 1
            }
        }
        return records.count
    }

    /// The cursor of the record at `index`, the last of a page.
    private func cursorAfter(_ record: JSON, at index: Int, in records: [JSON], key: String?) -> ViewCursor {
        let values = sort.map { sortKey -> JSON in
            switch Self.value(at: sortKey.path, in: record) {
            case nil: .null
            // Objects and arrays tie among themselves: their kind is all that orders them.
            case .object?: .object(JSONObject())
            case .array?: .array([])
            case let value?: value
            }
        }
        var ties = 0
        var before = index - 1
        while before >= 0, compare(records[before], values) == 0 {
            ties += 1
            before -= 1
        }
        return ViewCursor(values: values, key: key.flatMap { Self.key(of: record, $0) }, ties: ties)
    }

    static func key(of record: JSON, _ member: String) -> String? {
        guard case .object(let object) = record, case .string(let key)? = object[member] else { return nil }
        return key
    }

    /// The member at a dot path's names; nil where a name is missing or a value not an object.
    static func value(at path: [String], in record: JSON) -> JSON? {
        var current = record
        for name in path {
            guard case .object(let object) = current, let member = object[name] else { return nil }
            current = member
        }
        return current
    }

    /// `record` with only the members `paths` name (and `keeping`), in the record's order.
    static func project(_ record: JSON, _ paths: [[String]], keeping key: String?) -> JSON {
        guard case .object(let object) = record else { return record }
        var members: [JSONMember] = []
        for member in object.members {
            if member.key == key || paths.contains(where: { $0.count == 1 && $0[0] == member.key }) {
                members.append(member)
                continue
            }
            let nested = paths.filter { $0.count > 1 && $0[0] == member.key }.map { Array($0.dropFirst()) }
            if !nested.isEmpty, case .object = member.value {
                members.append(JSONMember(key: member.key, value: project(member.value, nested, keeping: nil)))
            }
        }
        return .object(JSONObject(members))
    }

    /// `value` with the value at `tokens` replaced by `new`.
    static func replacing(_ tokens: ArraySlice<String>, in value: JSON, with new: JSON) -> JSON {
        guard let token = tokens.first else { return new }
        switch value {
        case .object(var object):
            guard let index = object.index(forKey: token) else { return value }
            object.members[index].value = replacing(tokens.dropFirst(), in: object.members[index].value, with: new)
            return .object(object)
        case .array(var items):
            guard let index = JSON.arrayIndex(token), index < items.count else { return value }
            items[index] = replacing(tokens.dropFirst(), in: items[index], with: new)
            return .array(items)
        default:
            return value
        }
    }
}

extension ClientView.Filter {
    /// Whether the record's value at the filter's path passes. Order and equality are the
    /// mixed-type order's (`SortKeys.compare`); order tests hold only between values of one
    /// kind (numbers with numbers, strings with strings, by bytes).
    func holds(for record: JSON) -> Bool {
        let value = ClientView.value(at: path, in: record)
        switch op {
        case .equal: return Self.equal(value, values[0])
        case .ne: return !Self.equal(value, values[0])
        case .in: return values.contains { Self.equal(value, $0) }
        case .exists:
            let present: Bool = if case nil = value { false } else if case .null? = value { false } else { true }
            return present == (values[0] == .bool(true))
        case .prefix:
            guard case .string(let text)? = value, case .string(let prefix) = values[0] else { return false }
            return text.utf8.starts(with: prefix.utf8)
        case .gt, .gte, .lt, .lte:
            guard let value, Self.sameKind(value, values[0]) else { return false }
            let order = SortKeys.compare(value, values[0])
            switch op {
            case .gt: return order > 0
            case .gte: return order >= 0
            case .lt: return order < 0
            default: return order <= 0
            }
        }
    }

    private static func equal(_ value: JSON?, _ wanted: JSON) -> Bool {
        switch (value, wanted) {
        case (.object?, _), (.array?, _): return false
        default: return SortKeys.compare(value, wanted) == 0
        }
    }

    private static func sameKind(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.number, .number), (.string, .string): true
        default: false
        }
    }
}

extension ClientView {
    /// The view `rawQuery` asks of a route's answer, as the server makes it: what the offline
    /// verbs (`reshape test`'s examples, `reshape explain --query`) show. Nil when the route has
    /// no `client-query` or the query asks for no view.
    package static func view(of answer: JSON, rawQuery: String, route: Route) throws(ClientQueryError) -> JSON? {
        guard let rule = route.clientQuery, let view = try parse(Substring(rawQuery), rule: rule) else { return nil }
        return try view.apply(to: answer, rule: rule, fingerprint: route.fingerprint).body
    }
}
