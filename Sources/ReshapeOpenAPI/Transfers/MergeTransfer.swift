import ReshapeRules

/// `merge: { base, add }` — the object at `base` with each `add` member set to the value at
/// its pointer (a pointer that reaches nothing is `merge-missing`; `base` must be an object).
extension MergeOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        let whole = Shape.union(algebra.objects(input).map(Shape.object))
        let added = additions.map { (name: $0.name, shape: algebra.select(whole, $0.pointer.tokens[...])) }
        return .union(
            algebra.objects(algebra.select(whole, base.tokens[...])).map { base in
                var result = base
                for addition in added { result.set(addition.name, addition.shape, required: true) }
                return .object(result)
            })
    }
}
