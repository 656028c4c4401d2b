import ReshapeRules

/// `sort` — the same elements in another order; anything but an array is `not-an-array`.
extension SortOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        let arrayness = algebra.arrayness(input)
        if !arrayness.mayBeOther { return input }  // keeps `.schema` and `allOf` parts whole
        return arrayness.mayBeArray ? .array(algebra.items(input)) : .never
    }
}
