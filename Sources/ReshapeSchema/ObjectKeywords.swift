import ReshapeJSON

// Keywords on objects: properties, patternProperties, additionalProperties, propertyNames,
// required, dependentRequired, dependentSchemas, min/maxProperties.

final class PropertiesKeyword: KeywordCheck {
    /// Few properties: compared in order (cheaper than hashing each key); many: a table.
    let names: [String]
    let nodes: [SchemaNode]
    /// `nodes` without reference counting, for the per-member loop (`nodes` keeps them alive).
    private let unretainedNodes: [Unmanaged<SchemaNode>]
    let table: [String: SchemaNode]?

    init(_ list: [(String, SchemaNode)], _ site: KeywordSite) {
        names = list.map(\.0)
        nodes = list.map(\.1)
        unretainedNodes = nodes.map { Unmanaged.passUnretained($0) }
        table = list.count > 12 ? Dictionary(list, uniquingKeysWith: { first, _ in first }) : nil
        super.init(site)
    }

    /// Index of a member's schema, starting after the previous match: records usually list
    /// their members in the schema's order, so most lookups succeed at the first comparison.
    @inline(__always)
    private func index(of key: String, cursor: inout Int) -> Int? {
        let count = names.count
        let length = key.utf8.count
        var i = cursor
        for _ in 0..<count {
            if i == count { i = 0 }
            if names[i].utf8.count == length && names[i] == key {
                cursor = i + 1
                return i
            }
            i += 1
        }
        return nil
    }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        var cursor = 0
        // Members are read in place (no copy of each key and value per member).
        let members = object.members
        for m in members.indices {
            let passed: Bool
            if let table {
                guard let node = table[members[m].key] else { continue }
                passed = e.at(node, members[m].value, e.child(path, members[m].key))
            } else {
                guard let i = index(of: members[m].key, cursor: &cursor) else { continue }
                passed = unretainedNodes[i]._withUnsafeGuaranteedRef { e.at($0, members[m].value, e.child(path, members[m].key)) }
            }
            if collect { annotations.evaluatedProperty(members[m].key) }
            if !passed {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        return valid
    }
}

final class PatternPropertiesKeyword: KeywordCheck {
    let patterns: [(CompiledPattern, SchemaNode)]
    init(_ patterns: [(CompiledPattern, SchemaNode)], _ site: KeywordSite) { self.patterns = patterns; super.init(site) }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for member in object.members {
            for (pattern, node) in patterns where pattern.matches(member.key) {
                if collect { annotations.evaluatedProperty(member.key) }
                if !e.at(node, member.value, e.child(path, member.key)) {
                    valid = false
                    if e.stopsAtFirstFailure { return false }
                }
            }
        }
        return valid
    }
}

/// `additionalProperties`: members neither `properties` nor `patternProperties` of the same schema name.
final class AdditionalPropertiesKeyword: KeywordCheck {
    let node: SchemaNode
    let named: Set<String>
    let patterns: [CompiledPattern]
    init(_ node: SchemaNode, named: Set<String>, patterns: [CompiledPattern], _ site: KeywordSite) {
        self.node = node
        self.named = named
        self.patterns = patterns
        super.init(site)
    }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for member in object.members {
            if named.contains(member.key) || patterns.contains(where: { $0.matches(member.key) }) { continue }
            if collect { annotations.evaluatedProperty(member.key) }
            if !e.leftover(node, site, member.value, e.child(path, member.key),
                           "property \(Self.brief(.string(member.key))) is not allowed") {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        return valid
    }
}

final class PropertyNamesKeyword: KeywordCheck {
    let node: SchemaNode
    init(_ node: SchemaNode, _ site: KeywordSite) { self.node = node; super.init(site) }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        for member in object.members where !e.quietly({ $0.at(node, .string(member.key), "") }) {
            return fail(&e, path, "property name \(Self.brief(.string(member.key))) is not allowed")
        }
        return true
    }
}

final class RequiredKeyword: KeywordCheck {
    let names: [String]
    init(_ names: [String], _ site: KeywordSite) { self.names = names; super.init(site) }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for name in names where !Self.has(object, name) {
            valid = fail(&e, path, "missing property \(Self.brief(.string(name)))")
            if e.stopsAtFirstFailure { return false }
        }
        return valid
    }
}

extension KeywordCheck {
    /// Whether `object` has a member `name`, without copying member values.
    @inline(__always)
    static func has(_ object: JSONObject, _ name: String) -> Bool {
        let length = name.utf8.count
        return object.members.contains { $0.key.utf8.count == length && $0.key == name }
    }
}

final class DependentRequiredKeyword: KeywordCheck {
    let dependencies: [(String, [String])]
    init(_ dependencies: [(String, [String])], _ site: KeywordSite) { self.dependencies = dependencies; super.init(site) }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for (trigger, names) in dependencies where Self.has(object, trigger) {
            for name in names where !Self.has(object, name) {
                valid = fail(&e, path, "property \(Self.brief(.string(trigger))) requires \(Self.brief(.string(name)))")
                if e.stopsAtFirstFailure { return false }
            }
        }
        return valid
    }
}

final class DependentSchemasKeyword: KeywordCheck {
    let dependencies: [(String, SchemaNode)]
    init(_ dependencies: [(String, SchemaNode)], _ site: KeywordSite) { self.dependencies = dependencies; super.init(site) }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for (trigger, node) in dependencies where Self.has(object, trigger) {
            if !e.inPlace(node, instance, path, &annotations, collect: collect) {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        return valid
    }
}

/// `minProperties` / `maxProperties`.
final class PropertyCountKeyword: KeywordCheck {
    let limit: Int
    let upper: Bool
    init(_ limit: Int, upper: Bool, _ site: KeywordSite) { self.limit = limit; self.upper = upper; super.init(site) }

    override func check(_ e: inout Evaluation, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        guard case .object(let object) = instance else { return true }
        if upper ? object.count <= limit : object.count >= limit { return true }
        return fail(&e, path, "\(object.count) properties, \(upper ? "more" : "fewer") than \(limit)")
    }
}
