import ReshapeJSON

/// The questions steps ask about shapes. Needs the types, to look into `.schema` parts.
package struct ShapeAlgebra: Sendable {
    package let types: TypeCatalog

    package init(types: TypeCatalog) { self.types = types }

    /// The values of `shape` that are also of `type` (a `.schema`): `type` alone when everything
    /// `type` allows is already in `shape`, since the earlier fragment then says nothing more
    /// (and generated clients cannot merge a derived fragment with the type it restates);
    /// otherwise their intersection.
    package func narrowed(_ shape: Shape, to type: Shape) -> Shape {
        if case .schema = type, opened(type, depth: 0).isSubset(of: shape) { return type }
        return .intersection([shape, type])
    }

    /// `shape` with every `.schema` part replaced by its structure, down to `depth` 8: a
    /// superset of `shape`, so what it is a subset of, `shape` is too.
    private func opened(_ shape: Shape, depth: Int) -> Shape {
        guard depth < 8 else { return .any }
        switch shape {
        case .schema(let schema): return opened(types.structure(of: schema), depth: depth + 1)
        case .array(let items): return .array(opened(items, depth: depth + 1))
        case .object(var object):
            object.properties = object.properties.map { ($0.name, opened($0.shape, depth: depth + 1)) }
            object.additional = opened(object.additional, depth: depth + 1)
            return .object(object)
        case .anyOf(let parts): return .anyOf(parts.map { opened($0, depth: depth + 1) })
        case .allOf(let parts): return .allOf(parts.map { opened($0, depth: depth + 1) })
        case .any, .never, .scalars, .constant: return shape
        }
    }

    /// The shape as alternatives each of one kind: `.scalars`, a scalar `.constant`, `.array`
    /// or `.object`. Their union includes every value of `shape`.
    package func variants(_ shape: Shape) -> [Shape] {
        variants(shape, depth: 0)
    }

    private func variants(_ shape: Shape, depth: Int) -> [Shape] {
        guard depth < 32 else { return [.scalars(.all), .array(.any), .openObject] }
        switch shape {
        case .any:
            return [.scalars(.all), .array(.any), .openObject]
        case .never:
            return []
        case .scalars(let kinds):
            return kinds.isEmpty ? [] : [shape]
        case .constant(let value):
            if case .array = value { return [Shape.structure(of: value)] }
            if case .object = value { return [Shape.structure(of: value)] }
            return [shape]
        case .array, .object:
            return [shape]
        case .anyOf(let parts):
            return parts.flatMap { variants($0, depth: depth + 1) }
        case .allOf(let parts):
            guard var result = parts.first.map({ variants($0, depth: depth + 1) }) else {
                return variants(.any, depth: depth + 1)
            }
            for part in parts.dropFirst() {
                let more = variants(part, depth: depth + 1)
                var combined: [Shape] = []
                for a in result {
                    for b in more {
                        let both = meet(a, b)
                        if case .never = both { continue }
                        combined.append(both)
                    }
                }
                result = combined
            }
            return result
        case .schema(let schema):
            return variants(types.structure(of: schema), depth: depth + 1)
        }
    }

    /// The intersection of two single-kind variants; `.never` when their kinds differ.
    private func meet(_ a: Shape, _ b: Shape) -> Shape {
        switch (a, b) {
        case (.scalars(let x), .scalars(let y)):
            let both = x.intersection(y)
            return both.isEmpty ? .never : .scalars(both)
        case (.constant(let value), .scalars(let kinds)), (.scalars(let kinds), .constant(let value)):
            return ScalarKinds.of(value).map { kinds.isSuperset(of: $0) } == true ? .constant(value) : .never
        case (.constant(let x), .constant(let y)):
            return x == y ? a : .never
        case (.array(let x), .array(let y)):
            return .array(.intersection([x, y]))
        case (.object(let x), .object(let y)):
            var merged = ObjectShape(additional: .intersection([x.additional, y.additional]))
            var names: [String] = []
            for name in x.properties.map(\.name) + y.properties.map(\.name) where !names.contains(name) {
                names.append(name)
            }
            merged.properties = names.map { ($0, Shape.intersection([x.shape(of: $0), y.shape(of: $0)])) }
            for name in x.required + y.required where !merged.required.contains(name) { merged.required.append(name) }
            return .object(merged)
        default:
            return .never
        }
    }

    // MARK: Questions

    /// Whether a value of `shape` may be `null`.
    package func mayBeNull(_ shape: Shape) -> Bool {
        variants(shape).contains {
            switch $0 {
            case .scalars(let kinds): kinds.contains(.null)
            case .constant(.null): true
            default: false
            }
        }
    }

    /// `shape` without `null`. Kept whole (a looser answer) when it has no `null` alternative
    /// to remove at its top, so `.schema` and `.allOf` parts are not taken apart for nothing.
    package func removingNull(_ shape: Shape) -> Shape {
        switch shape {
        case .scalars(let kinds): return kinds == .null ? .never : .scalars(kinds.subtracting(.null))
        case .constant(.null): return .never
        case .anyOf(let parts): return .union(parts.map(removingNull))
        default: return shape
        }
    }

    /// The value at `tokens` (a JSON Pointer's) inside a value of `shape`; `.never` where
    /// nothing can be there.
    package func select(_ shape: Shape, _ tokens: ArraySlice<String>) -> Shape {
        guard let token = tokens.first else { return shape }
        return .union(
            variants(shape).map { variant in
                switch variant {
                case .object(let object):
                    return select(object.shape(of: token), tokens.dropFirst())
                case .array(let items):
                    return JSON.arrayIndex(token) == nil ? .never : select(items, tokens.dropFirst())
                default:
                    return .never
                }
            })
    }

    /// Only the object alternatives of `shape`.
    package func objects(_ shape: Shape) -> [ObjectShape] {
        variants(shape).compactMap { if case .object(let object) = $0 { object } else { nil } }
    }

    /// The union of the element shapes of `shape`'s array alternatives (`.never`: it has none).
    package func items(_ shape: Shape) -> Shape {
        .union(variants(shape).compactMap { if case .array(let items) = $0 { items } else { nil } })
    }

    /// Whether `shape` has an array alternative, and one that is not an array.
    package func arrayness(_ shape: Shape) -> (mayBeArray: Bool, mayBeOther: Bool) {
        var result = (mayBeArray: false, mayBeOther: false)
        for variant in variants(shape) {
            if case .array = variant { result.mayBeArray = true } else { result.mayBeOther = true }
        }
        return result
    }

    /// The output of a record operation (`rename`, `drop`, `keep`, `default`, `set`,
    /// `coerce`): `transform` on one object, or on every element of an array of objects;
    /// anything else is the error `not-an-object`. `dropsRecord`: the step may drop the record
    /// (`invalid: drop`), which removes an element from its array but turns a lone record into
    /// `null`.
    package func mapRecords(_ shape: Shape, dropsRecord: Bool = false, _ transform: (ObjectShape) -> Shape) -> Shape {
        .union(
            variants(shape).map { variant in
                switch variant {
                case .object(let object):
                    return dropsRecord ? .union([transform(object), .null]) : transform(object)
                case .array(let items):
                    return .array(.union(objects(items).map(transform)))
                default:
                    return .never
                }
            })
    }
}
