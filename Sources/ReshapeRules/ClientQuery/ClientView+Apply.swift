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

    func decodedCursor(binding: String) throws(ClientQueryError) -> ViewCursor? {
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
        let selection = try select(
            TreeRecords(records: records, view: self, keyMember: rule.keyMember), rule: rule, fingerprint: fingerprint)
        var page = selection.page.map { records[$0] }
        if let fields { page = page.map { Self.project($0, fields, keeping: rule.keyMember) } }
        let body = Self.replacing(rule.array.tokens[...], in: answer, with: .array(page))
        return ViewOutcome(body: body, total: selection.total, nextCursor: selection.next)
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
            // Names by their bytes, as the tape's view compares them (not Swift's `==`).
            let isKey = key.map { JSONObject.sameName(member.key, $0) } ?? false
            if isKey || paths.contains(where: { $0.count == 1 && JSONObject.sameName($0[0], member.key) }) {
                members.append(member)
                continue
            }
            let nested = paths.filter { $0.count > 1 && JSONObject.sameName($0[0], member.key) }.map {
                Array($0.dropFirst())
            }
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
    func holds(for record: JSON) -> Bool { holds(ClientView.value(at: path, in: record)) }

    /// Whether a record with `value` at the filter's path (nil: missing) passes.
    func holds(_ value: JSON?) -> Bool {
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

/// The records of a built answer, read as `select` needs them.
struct TreeRecords: ViewRecords {
    let records: [JSON]
    let view: ClientView
    let keyMember: String?

    var count: Int { records.count }

    func passes(_ filter: Int, _ record: Int) -> Bool { view.filters[filter].holds(for: records[record]) }

    func appendSortKey(_ sortKey: Int, of record: Int, to keys: inout SortKeys) {
        keys.append(sortValue(sortKey, of: record))
    }

    func sortValue(_ sortKey: Int, of record: Int) -> JSON? {
        ClientView.value(at: view.sort[sortKey].path, in: records[record])
    }

    func key(of record: Int) -> String? { keyMember.flatMap { ClientView.key(of: records[record], $0) } }

    func hasKey(_ record: Int, _ wanted: String) -> Bool {
        key(of: record).map { JSONObject.sameName($0, wanted) } ?? false
    }
}
