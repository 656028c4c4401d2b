// Firebase's REST queries, as the demo answers them (docs/firebase.md): `orderBy` with
// `startAt`, `endAt` or `equalTo` filters, then `limitToFirst` or `limitToLast` cuts, in that
// order. Like Firebase, the matches come back as an object in no particular order: the demo
// answers them in reverse, so a client that needs them sorted must sort them itself. A query
// Firebase refuses is answered 400 `{"error": "..."}`. Written apart from ReshapeRules'
// `FirebaseQuery`, so the demo stays an independent witness of what Reshape does.

/// One request's query.
struct DemoQuery {
    enum Order {
        case key, value, priority
        case child([String])
    }

    var order: Order
    var startAt: DemoValue?
    var endAt: DemoValue?
    var equalTo: DemoValue?
    var limitToFirst: Int?
    var limitToLast: Int?

    static let names: Set<String> = ["orderBy", "startAt", "endAt", "equalTo", "limitToFirst", "limitToLast"]

    /// The request's query; nil when it has none (`shallow` and `print` are not queries), or
    /// Firebase's error message when Firebase would refuse it.
    static func of(_ request: DemoRequest) -> Result<DemoQuery?, DemoQueryRefusal> {
        let given = request.query.filter { names.contains($0.name) }
        if given.isEmpty { return .success(nil) }
        if request.queryValue("shallow") != nil {
            return .failure(DemoQueryRefusal("Mixing 'shallow' and querying parameters is not supported"))
        }
        for pair in given where given.filter({ $0.name == pair.name }).count > 1 {
            return .failure(DemoQueryRefusal("\(pair.name) was given more than once"))
        }
        func json(_ name: String) -> DemoValue?? {
            request.queryValue(name).map { DemoJSONParser.parse(Array($0.utf8)) }
        }
        guard case .string(let orderBy)?? = json("orderBy") else {
            if request.queryValue("orderBy") == nil {
                return .failure(DemoQueryRefusal("orderBy must be defined when other query parameters are defined"))
            }
            return .failure(DemoQueryRefusal("orderBy must be a valid JSON encoded path"))
        }
        var query = DemoQuery(order: .key)
        switch orderBy {
        case "$key": query.order = .key
        case "$value": query.order = .value
        case "$priority": query.order = .priority
        default:
            let path = orderBy.split(separator: "/").map(String.init)
            let forbidden: Set<Character> = [".", "$", "#", "[", "]"]
            guard !path.isEmpty, !path.contains(where: { $0.contains(where: forbidden.contains) }) else {
                return .failure(DemoQueryRefusal("orderBy must be a valid JSON encoded path"))
            }
            query.order = .child(path)
        }
        for name in ["startAt", "endAt", "equalTo"] {
            guard let value = json(name) else { continue }
            switch value {
            case .string?: break
            case .number?, .bool?, .null?:
                if case .key = query.order {
                    return .failure(DemoQueryRefusal("\(name) must be a string when ordering by $key"))
                }
            default:
                return .failure(DemoQueryRefusal("Constraint index field must be a JSON primitive"))
            }
            switch name {
            case "startAt": query.startAt = value
            case "endAt": query.endAt = value
            default: query.equalTo = value
            }
        }
        if query.equalTo != nil, query.startAt != nil || query.endAt != nil {
            return .failure(DemoQueryRefusal("equalTo cannot be combined with startAt or endAt"))
        }
        for name in ["limitToFirst", "limitToLast"] {
            guard let text = request.queryValue(name) else { continue }
            guard let limit = Int(text), limit >= 1, limit <= Int(Int32.max), String(limit) == text else {
                return .failure(DemoQueryRefusal("\(name) must be a positive integer"))
            }
            if name == "limitToFirst" { query.limitToFirst = limit } else { query.limitToLast = limit }
        }
        if query.limitToFirst != nil, query.limitToLast != nil {
            return .failure(DemoQueryRefusal("Cannot set both limitToFirst and limitToLast"))
        }
        return .success(query)
    }

    /// The children of `value` that match, cut by the limit, answered in reverse order.
    func answer(_ value: DemoValue) -> DemoValue {
        var children: [(String, DemoValue)]
        switch value {
        case .object(let members): children = members
        case .array(let elements):
            children = elements.enumerated().compactMap { index, element in
                if case .null = element { return nil }
                return (String(index), element)
            }
        default: return value
        }
        // The demo keeps no priorities: every child's is null, so the order is by key.
        children.sort { precedes($0, $1) }
        children = children.filter { child in
            if let equalTo { return compare(child, to: equalTo) == 0 }
            if let startAt, compare(child, to: startAt) < 0 { return false }
            if let endAt, compare(child, to: endAt) > 0 { return false }
            return true
        }
        if let limitToFirst { children = Array(children.prefix(limitToFirst)) }
        if let limitToLast { children = Array(children.suffix(limitToLast)) }
        return .object(children.reversed())
    }

    /// What orders a child: its key's place, its value, or its child at the path.
    private func orderValue(_ child: (String, DemoValue)) -> DemoValue? {
        switch order {
        case .key, .priority: return nil
        case .value: return child.1
        case .child(let path): return child.1.value(at: path)
        }
    }

    private func precedes(_ a: (String, DemoValue), _ b: (String, DemoValue)) -> Bool {
        let byValue = Self.compareValues(orderValue(a), orderValue(b))
        return byValue != 0 ? byValue < 0 : Self.compareKeys(a.0, b.0) < 0
    }

    /// A child against a `startAt`, `endAt` or `equalTo` bound: by key when ordering by key,
    /// otherwise by value only.
    private func compare(_ child: (String, DemoValue), to bound: DemoValue) -> Int {
        switch order {
        case .key, .priority:
            guard case .string(let name) = bound else { return 0 }
            return Self.compareKeys(child.0, name)
        case .value, .child:
            return Self.compareValues(orderValue(child), bound)
        }
    }

    /// Firebase's value order: missing or null, false, true, numbers, strings, objects.
    static func compareValues(_ a: DemoValue?, _ b: DemoValue?) -> Int {
        func rank(_ value: DemoValue?) -> Int {
            switch value {
            case nil, .null?: 0
            case .bool(false)?: 1
            case .bool(true)?: 2
            case .number?: 3
            case .string?: 4
            case .object?, .array?: 5
            }
        }
        let (x, y) = (rank(a), rank(b))
        if x != y { return x < y ? -1 : 1 }
        switch (a, b) {
        case (.number(let m)?, .number(let n)?):
            let (p, q) = (Double(m) ?? 0, Double(n) ?? 0)
            return p == q ? 0 : (p < q ? -1 : 1)
        case (.string(let s)?, .string(let t)?):
            return s == t ? 0 : (Array(s.utf8).lexicographicallyPrecedes(Array(t.utf8)) ? -1 : 1)
        default:
            return 0
        }
    }

    /// Firebase's key order: 32-bit integers first, numerically, then the rest as strings.
    static func compareKeys(_ a: String, _ b: String) -> Int {
        func integer(_ key: String) -> Int? {
            let digits = key.hasPrefix("-") ? key.dropFirst() : Substring(key)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                digits.drop(while: { $0 == "0" }).count <= 10, let value = Int(key),
                value >= Int(Int32.min), value <= Int(Int32.max)
            else { return nil }
            return value
        }
        switch (integer(a), integer(b)) {
        case (let x?, let y?):
            return x != y
                ? (x < y ? -1 : 1) : (a.utf8.count == b.utf8.count ? 0 : (a.utf8.count < b.utf8.count ? -1 : 1))
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return a == b ? 0 : (Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : 1)
        }
    }
}

/// Firebase's error message for a query it refuses.
struct DemoQueryRefusal: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
