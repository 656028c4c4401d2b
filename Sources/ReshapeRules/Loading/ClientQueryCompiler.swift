import ReshapeJSON

extension RuleSetBuilder {
    static let clientQueryKeys: Set<String> = ["array", "fields", "filter", "sort", "page"]

    /// `client-query: { array: /objects, fields: true, filter: [age], sort: [name], page: { size:
    /// 50, max: 500 } }` on a GET route. What the answer's shape must allow (an array of objects
    /// at `array`, declaring the filter and sort fields) is checked after loading, by
    /// `ClientQueryShapes` (ReshapeOpenAPI), which derives that shape.
    mutating func compileClientQuery(
        _ object: JSONObject, method: String, cache: CachePolicy?, pipeline: Pipeline, _ scope: RouteScope
    ) -> ClientQueryRule? {
        guard let value = object["client-query"] else { return nil }
        let pointer = scope.pointer + "/client-query"
        let document = scope.document
        guard case .object(let members) = value else {
            report(
                document, pointer,
                "`client-query` must be a mapping like { fields: true, filter: [age], sort: [name], page: { size: 50, max: 500 } }"
            )
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: members, allowed: Self.clientQueryKeys, what: "client-query key", document, pointer)
        if !method.isEmpty, method != "GET" {
            report(document, pointer, "`client-query` is for GET routes; a \(method) answer is not a view")
        }
        if object["conditional"] == .bool(true) {
            report(
                document, pointer,
                "`client-query` cannot be used with `conditional: true`: a view's tag is not Firebase's resource tag")
        }
        var rule = ClientQueryRule(array: JSONPointer(tokens: []))
        rule.locations.rule = document.keyLocation(of: pointer)
        rule.locations.array = document.location(of: pointer)
        if let array = members["array"] {
            rule.locations.array = document.location(of: pointer + "/array")
            if let text = array.stringValue, let parsed = JSONPointer(text) {
                rule.array = parsed
            } else {
                report(
                    document, pointer + "/array", "`array` must be a JSON Pointer like /objects (\"\" for the answer)")
            }
        }
        if let fields = members["fields"] {
            if case .bool(let flag) = fields {
                rule.fields = flag
            } else {
                report(document, pointer + "/fields", "`fields` must be true or false")
            }
        }
        // Names the route's query already means something else by.
        var taken: [String: String] = [:]
        if case .array(let names)? = object["forward-query"] {
            for name in names.compactMap(\.stringValue) { taken[name] = "`forward-query`" }
        }
        for name in cache?.varyQuery ?? [] { taken[name] = "`vary-query`" }
        if object["firebase-query"] == .bool(true) {
            for name in FirebaseQuery.names { taken[name] = "`firebase-query`" }
        }
        for name in ClientQueryRule.reservedNames.sorted() {
            if let owner = taken[name] {
                reportAtKey(document, pointer, "'\(name)' is a client-query parameter, and \(owner) names it too")
            }
            taken[name] = "the client query (fields, sort, limit, cursor)"
        }
        let filterPaths = compileClientQueryPaths(members["filter"], "filter", pointer, document)
        for (index, path) in filterPaths.enumerated() {
            if let owner = taken[path.name] {
                report(
                    document, JSONPointer.appending(index: index, to: pointer + "/filter"),
                    "filter field '\(path.name)' is also a parameter of \(owner)")
            }
        }
        // A view reads `field[...]` of a filter field and `name[op]` of any name (`ClientView.reads`):
        // a name of the route's own of either form would never reach the upstream
        // (`ids[]` is fine unless `ids` is a filter field).
        for (name, owner) in taken.sorted(by: { $0.key < $1.key }) {
            guard let open = name.firstIndex(of: "["),
                ClientView.reads(name, rule) || filterPaths.contains(where: { $0.name == name[..<open] })
            else { continue }
            reportAtKey(
                document, pointer,
                "'\(name)' in \(owner) would be read as a client-query filter (`field[op]`); rename it")
        }
        rule.filter = filterPaths.map(\.name)
        rule.locations.filter = filterPaths.map(\.location)
        let sortPaths = compileClientQueryPaths(members["sort"], "sort", pointer, document)
        rule.sort = sortPaths.map(\.name)
        rule.locations.sort = sortPaths.map(\.location)
        if let page = members["page"] {
            rule.page = compileClientQueryPage(page, pointer + "/page", document)
        }
        rule.keyMember = Self.recordKey(in: pipeline)
        return problems.count == before ? rule : nil
    }

    /// A `filter` or `sort` list: dot paths of non-empty names, each once.
    private mutating func compileClientQueryPaths(
        _ value: JSON?, _ key: String, _ parent: String, _ document: SourceDocument
    ) -> [(name: String, location: SourceLocation)] {
        guard let value else { return [] }
        let pointer = parent + "/" + key
        guard case .array(let items) = value else {
            report(document, pointer, "`\(key)` must be a list of field names like [age, address.city]")
            return []
        }
        var paths: [(name: String, location: SourceLocation)] = []
        for (index, item) in items.enumerated() {
            let at = JSONPointer.appending(index: index, to: pointer)
            guard let name = item.stringValue,
                !name.isEmpty, ClientQueryRule.path(name).allSatisfy({ !$0.isEmpty }),
                !name.contains("["), !name.contains("]"), !name.contains("&"), !name.contains("=")
            else {
                report(document, at, "`\(key)` names fields, or dot paths like address.city, without [ ] & =")
                continue
            }
            if paths.contains(where: { $0.name == name }) {
                report(document, at, "'\(name)' is listed twice in `\(key)`")
                continue
            }
            paths.append((name, document.location(of: at)))
        }
        return paths
    }

    private mutating func compileClientQueryPage(
        _ value: JSON, _ pointer: String, _ document: SourceDocument
    ) -> ClientQueryRule.Page? {
        guard case .object(let members) = value else {
            report(document, pointer, "`page` must be a mapping like { size: 50, max: 500 }")
            return nil
        }
        _ = reportUnknownKeys(in: members, allowed: ["size", "max"], what: "page key", document, pointer)
        func count(_ key: String) -> Int? {
            guard let member = members[key] else {
                report(document, pointer, "`page` is missing `\(key)`")
                return nil
            }
            guard case .number(let number) = member, let value = Int(number.text), value >= 1,
                value <= ClientQueryRule.largestLimit
            else {
                report(
                    document, pointer + "/" + key,
                    "`\(key)` must be a whole number from 1 to \(ClientQueryRule.largestLimit)")
                return nil
            }
            return value
        }
        guard let size = count("size"), let max = count("max") else { return nil }
        guard size <= max else {
            report(document, pointer + "/size", "`size` (\(size)) must not be above `max` (\(max))")
            return nil
        }
        return ClientQueryRule.Page(size: size, max: max)
    }

    /// The member the route's last top-level `keyed-to-array` step names its records' keys by
    /// (one inside `at` or `each` makes an inner collection's).
    static func recordKey(in pipeline: Pipeline) -> String? {
        pipeline.steps.compactMap { ($0 as? KeyedToArrayOperation)?.keyField }.last
    }
}
