import ReshapeRules

/// `each: [STEPS]` — the steps on every element of an array (an element they drop is
/// removed, so the `null` a dropping step answers for it is only a looser shape).
extension EachOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        guard algebra.arrayness(input).mayBeArray else { return .never }
        return .array(body.outputShape(for: algebra.items(input), algebra))
    }
}
