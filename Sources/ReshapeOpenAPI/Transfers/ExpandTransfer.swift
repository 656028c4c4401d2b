import ReshapeRules

/// `expand` — every element of the array (each must be an object) gets member `as`: the
/// follow-up's body after the expand's own steps, never `null` (a `null` result is missing),
/// or, when missing, `null` (`missing: null`); with `drop` the element goes, with `fail` the
/// request. Then the steps after the expand run.
extension ExpandStage: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        let fetched = algebra.removingNull(expand.transform.outputShape(for: .any, algebra))
        let member: Shape = expand.missing == .null ? .union([fetched, .null]) : fetched
        guard algebra.arrayness(input).mayBeArray else { return .never }
        let elements = Shape.union(
            algebra.objects(algebra.items(input)).map { object in
                var object = object
                object.set(expand.member, member, required: true)
                return .object(object)
            })
        return then.outputShape(for: .array(elements), algebra)
    }
}
