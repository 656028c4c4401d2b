import ReshapeJSON
import ReshapeRules

/// How a transform step maps the shape of its input to the shape of its output. Each
/// operation implements it once, in `Transfers/`, next to nothing else; a step whose operation
/// does not conform (one added later and not taught here) answers `.any`, which is never wrong.
///
/// The contract: for every input value of `input` on which the step succeeds, the output
/// value is in the returned shape. When in doubt, answer a larger shape.
package protocol SchemaTransfer {
    func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape
}

extension Pipeline {
    /// The shape of the pipeline's output for an input of `input`.
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        var shape = input
        for step in steps {
            // A step that always fails makes the rest unreachable.
            if case .never = shape { return .never }
            shape = (step as? SchemaTransfer)?.outputShape(for: shape, algebra) ?? .any
        }
        return shape
    }

    /// Whether a step may drop the whole value it is given (`validate` or `coerce` with
    /// `invalid: drop` on a single record), so that an enclosing `each` or `at` removes it.
    var mayDropWholeValue: Bool {
        steps.contains { step in
            switch step {
            case let validate as ValidateOperation: validate.invalid == .drop
            case let coerce as CoerceOperation: coerce.invalid == .drop
            case let at as AtOperation: at.path.isEmpty && at.body.mayDropWholeValue
            default: !(step is SchemaTransfer)  // an operation not known here: assume it may
            }
        }
    }
}
