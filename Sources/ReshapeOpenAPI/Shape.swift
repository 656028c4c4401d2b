import ReshapeJSON

// What the OpenAPI export knows about a value at some step of a route: a small algebra of
// JSON Schemas that the operations can reason about. Every shape stands for a *superset* of
// the values it describes: whenever an operation cannot say exactly what it produces, its
// shape grows (down to `.any`, the schema `{}`), so a derived schema never rejects an output.

/// Kinds of scalar values. `integer` and `fraction` split JSON numbers so that `integer ∧
/// number` is exact; `number` is both.
package struct ScalarKinds: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let null = ScalarKinds(rawValue: 1)
    package static let boolean = ScalarKinds(rawValue: 2)
    package static let integer = ScalarKinds(rawValue: 4)
    /// Numbers with a fractional part.
    package static let fraction = ScalarKinds(rawValue: 8)
    package static let string = ScalarKinds(rawValue: 16)
    package static let number: ScalarKinds = [.integer, .fraction]
    package static let all: ScalarKinds = [.null, .boolean, .number, .string]

    /// JSON Schema `type` names, in a fixed order.
    var typeNames: [String] {
        var names: [String] = []
        if contains(.null) { names.append("null") }
        if contains(.boolean) { names.append("boolean") }
        if contains(.number) {
            names.append("number")
        } else if contains(.integer) {
            names.append("integer")
        } else if contains(.fraction) {
            names.append("number")  // JSON Schema has no "non-integer number": loosened
        }
        if contains(.string) { names.append("string") }
        return names
    }

    /// The kind of one scalar value; nil for arrays and objects.
    static func of(_ value: JSON) -> ScalarKinds? {
        switch value {
        case .null: .null
        case .bool: .boolean
        case .number(let number): number.isInteger ? .integer : .fraction
        case .string: .string
        case .array, .object: nil
        }
    }
}

/// A set of JSON values, described as a JSON Schema the operations can look into.
package indirect enum Shape: Sendable {
    /// Any value: `{}`.
    case any
    /// No value (the step always fails on this input): `false`.
    case never
    /// Any scalar of these kinds.
    case scalars(ScalarKinds)
    /// Exactly this value.
    case constant(JSON)
    /// An array whose elements all have this shape.
    case array(Shape)
    case object(ObjectShape)
    /// Use `Shape.union` and `Shape.intersection` to build these: they simplify.
    case anyOf([Shape])
    case allOf([Shape])
    /// A schema taken from the rule types as written (`{"$ref": "User"}`, a property's
    /// schema): kept whole, rendered with its references rewritten, and looked into through
    /// `TypeCatalog.structure` only when a step needs to.
    case schema(JSON)

    package static let string = Shape.scalars(.string)
    package static let null = Shape.scalars(.null)
    // Computed, not a stored global: Swift keeps an enum's case in the spare bits of its payload
    // pointer, so a global holding this boxed case looks unreachable to LeakSanitizer.
    package static var openObject: Shape { .object(ObjectShape()) }
    package static func reference(_ typeName: String) -> Shape {
        .schema(.object(JSONObject([JSONMember(key: "$ref", value: .string(typeName))])))
    }
}

/// An object: members with known shapes, which of them are always present, and the shape
/// of every other member (`.any` for an open object, `.never` when there are none).
package struct ObjectShape: Sendable {
    package var properties: [(name: String, shape: Shape)]
    package var required: [String]
    package var additional: Shape

    package init(properties: [(name: String, shape: Shape)] = [], required: [String] = [], additional: Shape = .any) {
        self.properties = properties
        self.required = required
        self.additional = additional
    }

    /// A closed object of exactly these members, all present.
    package static func closed(_ members: [(name: String, shape: Shape)]) -> ObjectShape {
        ObjectShape(properties: members, required: members.map(\.name), additional: .never)
    }

    /// The shape of member `name` when it is present (`.never`: it never is).
    package func shape(of name: String) -> Shape {
        properties.first { $0.name == name }?.shape ?? additional
    }

    package func isRequired(_ name: String) -> Bool { required.contains(name) }

    /// Sets a member's shape (appending it when new) and whether it is always present.
    package mutating func set(_ name: String, _ shape: Shape, required isRequired: Bool) {
        if let i = properties.firstIndex(where: { $0.name == name }) {
            properties[i].shape = shape
        } else {
            properties.append((name, shape))
        }
        if isRequired {
            if !required.contains(name) { required.append(name) }
        } else {
            required.removeAll { $0 == name }
        }
    }

    /// The member is gone. Its entry is removed, not made `false`: an absent member satisfies
    /// every `properties` and `additionalProperties` constraint anyway.
    package mutating func remove(_ name: String) {
        properties.removeAll { $0.name == name }
        required.removeAll { $0 == name }
    }
}

// MARK: - Building with simplification

extension Shape {
    /// The values of any of `shapes`: nested unions flattened, `never` left out, scalar kinds
    /// merged, and a member that another member includes left out.
    package static func union(_ shapes: [Shape]) -> Shape {
        var flat: [Shape] = []
        var kinds: ScalarKinds = []
        func add(_ shape: Shape) {
            switch shape {
            case .anyOf(let inner): inner.forEach(add)
            case .never: break
            case .scalars(let more): kinds.formUnion(more)
            default: flat.append(shape)
            }
        }
        shapes.forEach(add)
        if flat.contains(where: { if case .any = $0 { true } else { false } }) { return .any }
        if !kinds.isEmpty { flat.insert(.scalars(kinds), at: 0) }
        var kept: [Shape] = []
        for (i, shape) in flat.enumerated() {
            let subsumed = flat.indices.contains { j in
                j != i && shape.isSubset(of: flat[j]) && (!flat[j].isSubset(of: shape) || j < i)
            }
            if !subsumed { kept.append(shape) }
        }
        switch kept.count {
        case 0: return .never
        case 1: return kept[0]
        default: return .anyOf(kept)
        }
    }

    /// The values all of `shapes` describe: nested intersections flattened, `any` left out.
    package static func intersection(_ shapes: [Shape]) -> Shape {
        var flat: [Shape] = []
        func add(_ shape: Shape) {
            switch shape {
            case .allOf(let inner): inner.forEach(add)
            case .any: break
            default: flat.append(shape)
            }
        }
        shapes.forEach(add)
        if flat.contains(where: { if case .never = $0 { true } else { false } }) { return .never }
        switch flat.count {
        case 0: return .any
        case 1: return flat[0]
        default: return .allOf(flat)
        }
    }

    /// A conservative inclusion test: true only when every value of `self` is surely a value
    /// of `other` (false when it cannot tell).
    package func isSubset(of other: Shape) -> Bool {
        switch (self, other) {
        case (_, .any), (.never, _): return true
        case (.anyOf(let parts), _): return parts.allSatisfy { $0.isSubset(of: other) }
        case (_, .anyOf(let parts)): return parts.contains { isSubset(of: $0) }
        // An intersection is inside whatever one of its parts is inside; a shape is inside an
        // intersection when it is inside every part.
        case (.allOf(let parts), _): return parts.contains { $0.isSubset(of: other) }
        case (_, .allOf(let parts)): return parts.allSatisfy { isSubset(of: $0) }
        case (.scalars(let a), .scalars(let b)): return b.isSuperset(of: a)
        case (.constant(let value), .scalars(let b)): return ScalarKinds.of(value).map { b.isSuperset(of: $0) } ?? false
        case (.constant(let a), .constant(let b)): return a == b
        case (.array(let a), .array(let b)): return a.isSubset(of: b)
        case (.object(let a), .object(let b)):
            guard b.required.allSatisfy(a.required.contains), a.additional.isSubset(of: b.additional) else {
                return false
            }
            let names = Set(a.properties.map(\.name) + b.properties.map(\.name))
            return names.allSatisfy { a.shape(of: $0).isSubset(of: b.shape(of: $0)) }
        case (.schema(let a), .schema(let b)): return a == b
        default: return false
        }
    }

    /// A constant array or object as a structure of constants, so the steps can look into it.
    static func structure(of value: JSON) -> Shape {
        switch value {
        case .array(let elements): return .array(union(elements.map { .constant($0) }))
        case .object(let object): return .object(.closed(object.members.map { ($0.key, Shape.constant($0.value)) }))
        default: return .constant(value)
        }
    }
}
