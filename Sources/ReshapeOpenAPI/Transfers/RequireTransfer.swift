import ReshapeRules

/// `require: present` — `null` fails (404), anything else passes unchanged.
extension RequireOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.removingNull(input)
    }
}
