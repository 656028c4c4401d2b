import ReshapeRules

/// `array-to-keyed` — an array of records becomes an object of them by their `key` field
/// (removed from the record unless `keep-key`); `null` becomes `{}`.
extension ArrayToKeyedOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        .union(
            algebra.variants(input).map { variant in
                switch variant {
                case .scalars(let kinds):
                    return kinds.contains(.null) ? .object(ObjectShape(additional: .never)) : .never
                case .constant(let value):
                    if case .null = value { return .object(ObjectShape(additional: .never)) }
                    return .never
                case .array(let elements):
                    let records = algebra.objects(elements).map { record -> Shape in
                        var record = record
                        if !keepKey { record.remove(keyField) }
                        return .object(record)
                    }
                    return .object(ObjectShape(additional: .union(records)))
                default:
                    return .never
                }
            })
    }
}
