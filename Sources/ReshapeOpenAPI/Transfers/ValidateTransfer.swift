import ReshapeRules

/// `validate: { type: T, invalid }` — on an array each element is checked, on anything else
/// the whole value. With `fail` or `drop` what passes satisfies `T` (a dropped lone value
/// becomes `null`); `keep` changes nothing.
extension ValidateOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        if invalid == .keep { return input }
        let type = Shape.reference(typeName)
        if case .any = input {
            return .union([.array(type), type] + (invalid == .drop ? [.null] : []))
        }
        let arrayness = algebra.arrayness(input)
        var outputs: [Shape] = []
        if arrayness.mayBeArray { outputs.append(.array(algebra.narrowed(algebra.items(input), to: type))) }
        if arrayness.mayBeOther {
            // Only an array is checked element by element; a value of `input` that is not an
            // array is checked whole. `input` itself when it has no array alternative, so that
            // `.schema` parts stay whole.
            let whole =
                arrayness.mayBeArray
                ? Shape.union(algebra.variants(input).filter { if case .array = $0 { false } else { true } })
                : input
            outputs.append(algebra.narrowed(whole, to: type))
            if invalid == .drop { outputs.append(.null) }
        }
        return .union(outputs)
    }
}
