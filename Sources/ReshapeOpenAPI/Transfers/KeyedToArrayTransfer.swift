import ReshapeRules

/// `keyed-to-array` — an object's members (or a Firebase array's non-null elements) become
/// records carrying their name under `key`; a member that is not an object becomes
/// `{key: name, value: member}`; `null` becomes `[]`; other scalars are `not-an-object`.
extension KeyedToArrayOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        .union(
            algebra.variants(input).map { variant in
                switch variant {
                case .scalars(let kinds):
                    return kinds.contains(.null) ? .array(.never) : .never
                case .constant(let value):
                    if case .null = value { return .array(.never) }
                    return .never
                case .object(let object):
                    let members = Shape.union(object.properties.map(\.shape) + [object.additional])
                    return .array(record(members, algebra))
                case .array(let elements):
                    return .array(record(algebra.removingNull(elements), algebra))
                default:
                    return .never
                }
            })
    }

    /// The record a member of shape `member` becomes.
    private func record(_ member: Shape, _ algebra: ShapeAlgebra) -> Shape {
        .union(
            algebra.variants(member).map { variant in
                guard case .object(var object) = variant else {
                    return .object(.closed([(keyField, .string), (valueField, variant)]))
                }
                // A record of an unknown upstream is the common case: `{key: string, ...}` then says it all.
                switch conflict {
                case .overwrite, .fail:
                    object.set(keyField, .string, required: true)
                case .keep:
                    let own = object.shape(of: keyField)
                    object.set(keyField, .union([.string, own]), required: true)
                }
                return .object(object)
            })
    }
}
