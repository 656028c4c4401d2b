import ReshapeRules

/// `wrap: FIELD` — `{FIELD: value}`.
extension WrapOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        .object(.closed([(field, input)]))
    }
}
