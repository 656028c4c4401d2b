import ReshapeJSON
import ReshapeRules

/// `client-query:` against the route's derived answer shape, after loading (the loader knows no
/// shapes): refuses an `array` not known to hold objects, and filter or sort fields the element
/// type does not declare; fills each rule's value kinds and field names, which type and check a
/// client's query. `reshape check`, `serve` and the offline verbs load rules through it.
package enum ClientQueryShapes {
    /// Deepest dot path `fields` accepts, and most names listed.
    static let depth = 3
    static let maxNames = 512

    /// The rule set's problems with its client queries; `ruleSet`'s rules typed when none.
    package static func resolve(_ ruleSet: inout RuleSet) -> [RuleDiagnostic] {
        let algebra = ShapeAlgebra(types: TypeCatalog(types: ruleSet.types))
        var problems: [RuleDiagnostic] = []
        for index in ruleSet.routes.indices {
            guard var rule = ruleSet.routes[index].clientQuery else { continue }
            let route = ruleSet.routes[index]
            let answer = RouteShapes.output(of: route, algebra)
            let at = algebra.select(answer, rule.array.tokens[...])
            let variants = algebra.variants(at).filter { !isNull($0) }
            let items = algebra.items(at)
            let itemVariants = algebra.variants(items)
            let pointer = rule.array.tokens.isEmpty ? "the answer" : "'\(rule.array)'"
            guard !variants.isEmpty, variants.allSatisfy(isArray), !itemVariants.isEmpty,
                itemVariants.allSatisfy(isObject), !algebra.objects(items).allSatisfy({ $0.properties.isEmpty })
            else {
                problems.append(
                    RuleDiagnostic(
                        location: rule.locations.array,
                        message:
                            "route '\(route.name)': `client-query` needs an array of objects of a declared type at "
                            + "\(pointer), and the answer is not known to hold one there (end the transform with "
                            + "`validate: { type: ... }` on the records)"))
                continue
            }
            var bad = false
            for (names, locations, key) in [
                (rule.filter, rule.locations.filter, "filter"), (rule.sort, rule.locations.sort, "sort"),
            ] {
                for (position, name) in names.enumerated() {
                    if let shape = declared(ClientQueryRule.path(name)[...], in: items, algebra) {
                        rule.kinds[name] = kinds(of: shape, algebra)
                    } else {
                        bad = true
                        problems.append(
                            RuleDiagnostic(
                                location: position < locations.count ? locations[position] : rule.locations.rule,
                                message:
                                    "route '\(route.name)': \(key) field '\(name)' is not a member the records' type declares"
                            ))
                    }
                }
            }
            if bad { continue }
            var names: [String] = []
            collectNames(items, prefix: "", depth: 1, algebra, into: &names)
            if let key = rule.keyMember, !names.contains(key) { names.insert(key, at: 0) }
            rule.fieldNames = names.isEmpty ? nil : names
            ruleSet.routes[index].clientQuery = rule
        }
        return problems
    }

    /// The shape of the member at `path` in the objects of `shape`, when they declare it.
    static func declared(_ path: ArraySlice<String>, in shape: Shape, _ algebra: ShapeAlgebra) -> Shape? {
        guard let name = path.first else { return shape }
        let found = algebra.objects(shape).compactMap { object in
            object.properties.first { $0.name == name }?.shape
        }
        guard !found.isEmpty else { return nil }
        return declared(path.dropFirst(), in: .union(found), algebra)
    }

    /// The JSON kinds values of `shape` may have.
    static func kinds(of shape: Shape, _ algebra: ShapeAlgebra) -> ValueKinds {
        var kinds: ValueKinds = []
        for variant in algebra.variants(shape) {
            switch variant {
            case .scalars(let scalars): kinds.formUnion(ValueKinds(scalars))
            case .constant(let value):
                switch value {
                case .null: kinds.insert(.null)
                case .bool: kinds.insert(.boolean)
                case .number(let number): kinds.insert(number.isInteger ? .integer : .fraction)
                case .string: kinds.insert(.string)
                case .object: kinds.insert(.object)
                case .array: kinds.insert(.array)
                }
            case .array: kinds.insert(.array)
            case .object: kinds.insert(.object)
            default: kinds = .all
            }
        }
        return kinds
    }

    /// The declared members of the objects of `shape`, and theirs as dot paths, to `depth`.
    private static func collectNames(
        _ shape: Shape, prefix: String, depth: Int, _ algebra: ShapeAlgebra, into names: inout [String]
    ) {
        for object in algebra.objects(shape) {
            for property in object.properties where names.count < maxNames {
                let name = prefix + property.name
                guard !names.contains(name) else { continue }
                names.append(name)
                if depth < Self.depth, !property.name.contains(".") {
                    collectNames(property.shape, prefix: name + ".", depth: depth + 1, algebra, into: &names)
                }
            }
        }
    }

    private static func isNull(_ shape: Shape) -> Bool {
        switch shape {
        case .scalars(let kinds): kinds == .null
        case .constant(.null): true
        default: false
        }
    }
    private static func isArray(_ shape: Shape) -> Bool { if case .array = shape { true } else { false } }
    private static func isObject(_ shape: Shape) -> Bool { if case .object = shape { true } else { false } }
}

extension ValueKinds {
    init(_ scalars: ScalarKinds) {
        self = []
        if scalars.contains(.null) { insert(.null) }
        if scalars.contains(.boolean) { insert(.boolean) }
        if scalars.contains(.integer) { insert(.integer) }
        if scalars.contains(.fraction) { insert(.fraction) }
        if scalars.contains(.string) { insert(.string) }
    }
}

extension RuleLoader {
    /// `load(path:environment:)`, then the client queries checked against the answers' shapes.
    package static func loadServable(path: String, environment: [String: String]) -> Result<RuleSet, RuleDiagnostics> {
        servable(load(path: path, environment: environment))
    }

    /// A loaded rule set with its client queries checked and typed.
    package static func servable(_ loaded: Result<RuleSet, RuleDiagnostics>) -> Result<RuleSet, RuleDiagnostics> {
        guard case .success(var ruleSet) = loaded else { return loaded }
        let problems = ClientQueryShapes.resolve(&ruleSet)
        return problems.isEmpty ? .success(ruleSet) : .failure(RuleDiagnostics(problems))
    }
}
