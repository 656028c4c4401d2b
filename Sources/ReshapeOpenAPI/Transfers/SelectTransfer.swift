import ReshapeRules

/// `select: POINTER` — the value at the pointer (`select-missing` where nothing can be).
extension SelectOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.select(input, pointer.tokens[...])
    }
}
