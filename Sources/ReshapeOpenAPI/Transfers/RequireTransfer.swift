import ReshapeRules

/// `require: present` — `null` fails (404), anything else passes unchanged.
extension RequireOperation: SchemaTransfer {
    public func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.removingNull(input)
    }
}
