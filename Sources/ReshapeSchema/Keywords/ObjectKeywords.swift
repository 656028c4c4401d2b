import ReshapeJSON

// Keywords on objects: properties, patternProperties, additionalProperties, propertyNames,
// required, dependentRequired, dependentSchemas, min/maxProperties.

final class PropertiesKeyword: KeywordCheck, @unchecked Sendable {
    /// Few properties: compared in order (cheaper than hashing each key); many: a table.
    let names: [String]
    let nodes: [SchemaNode]
    /// `nodes` without reference counting, for the per-member loop (`nodes` keeps them alive).
    private let unretainedNodes: [Unmanaged<SchemaNode>]
    let table: [String: SchemaNode]?
    /// `names` as UTF-8 and `nodes` in manual storage, for tape members (an array read per
    /// member costs a bounds and a type check).
    private let utf8Names: NameList
    private let tapeNodes: UnsafeMutableBufferPointer<Unmanaged<SchemaNode>>

    init(_ list: [(String, SchemaNode)], _ site: KeywordSite, perfect: Bool = true) {
        names = list.map(\.0)
        nodes = list.map(\.1)
        unretainedNodes = nodes.map { Unmanaged.passUnretained($0) }
        table = list.count > 12 ? Dictionary(list, uniquingKeysWith: { first, _ in first }) : nil
        utf8Names = NameList(names, perfect: perfect)
        tapeNodes = .allocate(capacity: nodes.count)
        _ = tapeNodes.initialize(from: unretainedNodes)
        super.init(site)
    }

    deinit {
        utf8Names.deallocate()
        tapeNodes.deallocate()
    }

    /// Slots of the names' perfect table (for tests: nothing is added after compiling).
    var tableSlots: Int { utf8Names.perfectCount }

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

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
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
                passed = unretainedNodes[i]._withUnsafeGuaranteedRef {
                    e.at($0, members[m].value, e.child(path, members[m].key))
                }
            }
            if collect { annotations.evaluatedProperty(members[m].key) }
            if !passed {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        var seen: UInt64 = 0
        return check(tape: &e, instance, seen: &seen, additional: nil)
    }

    /// The tape check, also setting bit `i & 63` of `seen` for each property `i` the object
    /// has (`RequiredPropertiesKeyword` reads them), and checking the other members against
    /// `additional` when given (so that each name is looked up once).
    @inline(__always)
    func check(
        tape e: inout TapeEvaluation, _ instance: Int, seen: inout UInt64,
        additional: Unmanaged<AdditionalPropertiesKeyword>?
    ) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        var cursor = 0
        let view = e.view
        return view.allMembers(instance) { name, value in
            guard let i = utf8Names.index(of: name, cursor: &cursor) else {
                guard let additional else { return true }
                return additional._withUnsafeGuaranteedRef { $0.check(tape: &e, unnamed: name, value) }
            }
            seen |= 1 &<< UInt64(truncatingIfNeeded: i & 63)
            return tapeNodes[i]._withUnsafeGuaranteedRef { e.at($0, value) }
        }
    }
}

final class PatternPropertiesKeyword: KeywordCheck, @unchecked Sendable {
    let patterns: [(CompiledPattern, SchemaNode)]
    init(_ patterns: [(CompiledPattern, SchemaNode)], _ site: KeywordSite) {
        self.patterns = patterns
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
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

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        let view = e.view
        return view.allMembers(instance) { name, value in
            for (pattern, node) in patterns where pattern.matches(utf8: name) && !e.at(node, value) { return false }
            return true
        }
    }
}

/// `additionalProperties`: members neither `properties` nor `patternProperties` of the same schema name.
final class AdditionalPropertiesKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    let named: Set<String>
    let patterns: [CompiledPattern]
    private let utf8Named: NameList
    init(
        _ node: SchemaNode, named: Set<String>, patterns: [CompiledPattern], _ site: KeywordSite, perfect: Bool = true
    ) {
        self.node = node
        self.named = named
        self.patterns = patterns
        utf8Named = NameList(Array(named), perfect: perfect)
        super.init(site)
    }

    deinit { utf8Named.deallocate() }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for member in object.members {
            if named.contains(member.key) || patterns.contains(where: { $0.matches(member.key) }) { continue }
            if collect { annotations.evaluatedProperty(member.key) }
            if !e.leftover(
                node, site, member.value, e.child(path, member.key),
                "property \(Self.brief(.string(member.key))) is not allowed")
            {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        let view = e.view
        return view.allMembers(instance) { name, value in
            utf8Named.contains(name) || check(tape: &e, unnamed: name, value)
        }
    }

    /// A member that is none of the named properties: taken by a pattern, or checked here.
    @inline(__always)
    func check(tape e: inout TapeEvaluation, unnamed name: UnsafeBufferPointer<UInt8>, _ value: Int) -> Bool {
        if patterns.contains(where: { $0.matches(utf8: name) }) { return true }
        return e.at(node, value)
    }

    /// Whether the named properties are exactly `names`, compared by bytes.
    func covers(_ names: [String]) -> Bool {
        let bytes = Set(names.map { Array($0.utf8) })
        return bytes.count == utf8Named.count && bytes == Set(named.map { Array($0.utf8) })
    }
}

final class PropertyNamesKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    init(_ node: SchemaNode, _ site: KeywordSite) {
        self.node = node
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .object(let object) = instance else { return true }
        for member in object.members where !e.quietly({ $0.at(node, .string(member.key), "") }) {
            return fail(&e, path, "property name \(Self.brief(.string(member.key))) is not allowed")
        }
        return true
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        // Member names are string nodes, so they are checked where they are.
        if instance == e.view.extraObject, !e.at(node, TapeView.extraNameNode) { return false }
        let view = e.view
        var name = instance + 1
        let end = view.next(instance)
        while name < end {
            if !e.at(node, name) { return false }
            name = view.next(name + 1)
        }
        return true
    }
}

final class RequiredKeyword: KeywordCheck, @unchecked Sendable {
    let names: [String]
    private let utf8Names: NameList
    init(_ names: [String], _ site: KeywordSite) {
        self.names = names
        // Read by position only: no table to look names up.
        utf8Names = NameList(names, perfect: false)
        super.init(site)
    }

    deinit { utf8Names.deallocate() }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        for name in names where !Self.has(object, name) {
            valid = fail(&e, path, "missing property \(Self.brief(.string(name)))")
            if e.stopsAtFirstFailure { return false }
        }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        var cursor = instance + 1
        for i in 0..<utf8Names.count where !e.view.hasMember(instance, utf8Names.name(i), cursor: &cursor) {
            return false
        }
        return true
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

final class DependentRequiredKeyword: KeywordCheck, @unchecked Sendable {
    let dependencies: [(String, [String])]
    private let utf8Triggers: NameList
    private let utf8Required: [NameList]
    init(_ dependencies: [(String, [String])], _ site: KeywordSite) {
        self.dependencies = dependencies
        // Read by position only: no tables to look names up.
        utf8Triggers = NameList(dependencies.map(\.0), perfect: false)
        utf8Required = dependencies.map { NameList($0.1, perfect: false) }
        super.init(site)
    }

    deinit {
        utf8Triggers.deallocate()
        for list in utf8Required { list.deallocate() }
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
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

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        for (i, names) in utf8Required.enumerated() where e.view.hasMember(instance, utf8Triggers.name(i)) {
            for j in 0..<names.count where !e.view.hasMember(instance, names.name(j)) { return false }
        }
        return true
    }
}

final class DependentSchemasKeyword: KeywordCheck, @unchecked Sendable {
    let dependencies: [(String, SchemaNode)]
    private let utf8Triggers: NameList
    init(_ dependencies: [(String, SchemaNode)], _ site: KeywordSite) {
        self.dependencies = dependencies
        utf8Triggers = NameList(dependencies.map(\.0), perfect: false)
        super.init(site)
    }

    deinit { utf8Triggers.deallocate() }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
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

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        for (i, (_, node)) in dependencies.enumerated()
        where e.view.hasMember(instance, utf8Triggers.name(i)) && !e.evaluate(node, instance) {
            return false
        }
        return true
    }
}

/// `minProperties` / `maxProperties`.
final class PropertyCountKeyword: KeywordCheck, @unchecked Sendable {
    let limit: Int
    let upper: Bool
    init(_ limit: Int, upper: Bool, _ site: KeywordSite) {
        self.limit = limit
        self.upper = upper
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .object(let object) = instance else { return true }
        if upper ? object.count <= limit : object.count >= limit { return true }
        return fail(&e, path, "\(object.count) properties, \(upper ? "more" : "fewer") than \(limit)")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        let count = e.view.memberCount(instance)
        return upper ? count <= limit : count >= limit
    }
}
