import ReshapeJSON

/// What one request asks of a `client-query` route's array: the parsed, typed query
/// (docs/queries.md). `ClientView.parse` refuses what the rule does not allow; `apply` makes
/// the view.
package struct ClientView: Sendable, Equatable {
    /// `fields=`: the dot paths kept, as asked; nil: every member.
    package var fields: [[String]]?
    package var filters: [Filter] = []
    package var sort: [SortKey] = []
    /// `limit=`, or the rule's page size; nil: every record.
    package var limit: Int?
    /// `cursor=`, as sent.
    package var cursor: String?

    package enum Operator: String, Sendable, CaseIterable {
        case equal = ""
        case gte, gt, lte, lt, `in`, ne, prefix, exists
    }

    package struct Filter: Sendable, Equatable {
        /// The field as the rule names it, and its path.
        package var name: String
        package var path: [String]
        package var op: Operator
        /// One value; several for `in`; `exists` has a boolean.
        package var values: [JSON]

        /// `age[gte]=18`, values as JSON: what a cursor is bound to.
        var canonical: String {
            name + (op == .equal ? "" : "[\(op.rawValue)]") + "="
                + JSON.array(values).serializedString()
        }
    }

    package struct SortKey: Sendable, Equatable {
        package var name: String
        package var path: [String]
        package var descending: Bool
        var canonical: String { (descending ? "-" : "") + name }
    }

    package init() {}

    /// The query parameters a view reads; the others are the route's own, or ignored (issue 26).
    /// A filter is a declared filter field, alone or as `field[...]`, or any name with one of the
    /// operators in brackets (`zip[gt]`: a filter on a field not listed, which is a 400, as the
    /// issue says); `utm[source]` or a route's own `ids[]` is not one.
    package static func reads(_ name: String, _ rule: ClientQueryRule) -> Bool {
        if name == "limit" || name == "cursor" { return true }
        if name == "fields" { return rule.fields }
        if name == "sort" { return !rule.sort.isEmpty }
        guard let open = name.firstIndex(of: "[") else { return rule.filter.contains(name) }
        if rule.filter.contains(String(name[..<open])) { return true }
        let inner = name[name.index(after: open)...]
        return inner.hasSuffix("]") && Operator(rawValue: String(inner.dropLast())).map { $0 != .equal } == true
    }
}

extension ClientView {
    /// The view a raw query string asks for; nil when it asks for none and the rule pages
    /// nothing by default, so the plain answer is sent.
    package static func parse(_ rawQuery: Substring, rule: ClientQueryRule) throws(ClientQueryError) -> ClientView? {
        var view = ClientView()
        var seen: Set<String> = []
        var asked = false
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            // A name that does not decode is none of the view's: it is the route's, or ignored.
            guard let name = PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusIsSpace: true),
                reads(name, rule)
            else { continue }
            guard
                let value = PercentEncoding.decode(
                    equals.map { pair[pair.index(after: $0)...] } ?? "", plusIsSpace: true)
            else {
                throw .parameter(name, "is not valid percent-encoded UTF-8")
            }
            guard seen.insert(name).inserted else { throw .parameter(name, "is given more than once") }
            asked = true
            switch name {
            case "fields": view.fields = try fields(value, rule)
            case "sort": view.sort = try sortKeys(value, rule)
            case "limit": view.limit = try limit(value, rule)
            case "cursor":
                guard !value.isEmpty else { throw .cursor("the cursor is empty") }
                view.cursor = value
            default:
                view.filters.append(try filter(name, value, rule))
                if view.filters.count > ClientQueryRule.maxFilters {
                    throw .parameter(name, "is one filter too many: at most \(ClientQueryRule.maxFilters) are allowed")
                }
            }
        }
        if view.limit == nil { view.limit = rule.page?.size }
        return asked || rule.page != nil ? view : nil
    }

    private static func fields(_ text: String, _ rule: ClientQueryRule) throws(ClientQueryError) -> [[String]] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard names.count <= ClientQueryRule.maxFields else {
            throw .parameter("fields", "names \(names.count) fields; at most \(ClientQueryRule.maxFields) are allowed")
        }
        var paths: [[String]] = []
        for name in names {
            let path = ClientQueryRule.path(name)
            let known = rule.fieldNames.map { $0.contains(name) } ?? path.allSatisfy { !$0.isEmpty }
            guard known else {
                throw .parameter(
                    "fields", "names '\(name)', which records do not have", allowed: rule.fieldNames ?? [])
            }
            paths.append(path)
        }
        return paths
    }

    private static func sortKeys(_ text: String, _ rule: ClientQueryRule) throws(ClientQueryError) -> [SortKey] {
        var keys: [SortKey] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let descending = part.hasPrefix("-")
            let name = String(descending ? part.dropFirst() : part)
            guard rule.sort.contains(name) else {
                throw .parameter(
                    "sort", "cannot sort by '\(name)'",
                    allowed: rule.sort.flatMap { [$0, "-" + $0] })
            }
            guard !keys.contains(where: { $0.name == name }) else {
                throw .parameter("sort", "names '\(name)' twice")
            }
            keys.append(SortKey(name: name, path: ClientQueryRule.path(name), descending: descending))
        }
        return keys
    }

    private static func limit(_ text: String, _ rule: ClientQueryRule) throws(ClientQueryError) -> Int {
        let digits = !text.isEmpty && text.utf8.count <= 9 && text.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
        guard digits, let limit = Int(text), limit >= 1, limit <= rule.maxLimit else {
            throw .parameter("limit", "must be a whole number from 1 to \(rule.maxLimit)")
        }
        return limit
    }

    private static func filter(_ name: String, _ text: String, _ rule: ClientQueryRule) throws(ClientQueryError)
        -> Filter
    {
        var field = name
        var op = Operator.equal
        if let open = name.firstIndex(of: "[") {
            field = String(name[..<open])
            let inner = name[name.index(after: open)...]
            let allowedOps = Operator.allCases.dropFirst().map(\.rawValue)
            guard inner.hasSuffix("]"), let parsed = Operator(rawValue: String(inner.dropLast())), parsed != .equal
            else {
                throw .parameter(name, "has no such operator", allowed: allowedOps)
            }
            op = parsed
        }
        guard rule.filter.contains(field) else {
            throw .parameter(name, "filters on '\(field)', which is not a filter field", allowed: rule.filter)
        }
        let kinds = rule.kinds[field] ?? .all
        var values: [JSON]
        switch op {
        case .exists:
            guard text == "true" || text == "false" else { throw .parameter(name, "must be true or false") }
            values = [.bool(text == "true")]
        case .in:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= 64 else { throw .parameter(name, "lists more than 64 values") }
            values = []
            for part in parts { values.append(try typed(String(part), kinds, name)) }
        case .prefix:
            guard kinds.contains(.string) else {
                throw .parameter(name, "is a prefix test, and '\(field)' is not a string field")
            }
            values = [.string(text)]
        case .gt, .gte, .lt, .lte:
            guard !kinds.intersection([.number, .string]).isEmpty else {
                throw .parameter(name, "compares order, and '\(field)' is neither a number nor a string field")
            }
            values = [try typed(text, kinds.intersection([.number, .string]), name)]
        case .equal, .ne:
            values = [try typed(text, kinds, name)]
        }
        return Filter(name: field, path: ClientQueryRule.path(field), op: op, values: values)
    }

    /// `text` as a value of the field's kinds: a number where numbers are allowed (integers
    /// only for an integer field), `true`/`false`, `null`, else a string.
    static func typed(_ text: String, _ kinds: ValueKinds, _ name: String) throws(ClientQueryError) -> JSON {
        if !kinds.intersection(.number).isEmpty, let number = number(text) {
            if number.isInteger || kinds.contains(.fraction) { return .number(number) }
        }
        if kinds.contains(.boolean), text == "true" || text == "false" { return .bool(text == "true") }
        if kinds.contains(.null), text == "null" { return .null }
        if kinds.contains(.string) { return .string(text) }
        let expected = kinds.subtracting([.object, .array]).names.joined(separator: " or ")
        throw .parameter(name, "must be \(expected.isEmpty ? "a scalar" : expected); '\(text)' is not")
    }

    private static func number(_ text: String) -> JSONNumber? {
        guard text.utf8.count <= 64, case .number(let number)? = try? JSON.parse(Array(text.utf8)) else { return nil }
        return number
    }
}

extension ClientView {
    /// Whether the raw query names any parameter a view of `rule` reads.
    package static func asks(_ rawQuery: Substring, _ rule: ClientQueryRule) -> Bool {
        rawQuery.split(separator: "&", omittingEmptySubsequences: true).contains { pair in
            let name = pair.firstIndex(of: "=").map { pair[..<$0] } ?? pair
            return PercentEncoding.decode(name, plusIsSpace: true).map { reads($0, rule) } ?? false
        }
    }
}

extension ClientView {
    /// `limit` or `cursor`, when the raw query gives one: what a live subscription refuses.
    package static func pageParameter(in rawQuery: Substring) -> String? {
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let name = PercentEncoding.decode(pair.firstIndex(of: "=").map { pair[..<$0] } ?? pair, plusIsSpace: true)
            if name == "limit" || name == "cursor" { return name }
        }
        return nil
    }
}
