import ReshapeJSON
import ReshapeRules

/// `at: { path, do }` — the steps at every place the path reaches; places it does not reach
/// (a missing member, a scalar on the way) stay as they were. A member or element the steps
/// drop is removed from its container, so it is no longer `required`.
extension AtOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        visit(input, path[...], algebra)
    }

    private func visit(_ shape: Shape, _ tokens: ArraySlice<String?>, _ algebra: ShapeAlgebra) -> Shape {
        guard let token = tokens.first else { return body.outputShape(for: shape, algebra) }
        let rest = tokens.dropFirst()
        let mayRemove = rest.isEmpty && body.mayDropWholeValue
        return .union(
            algebra.variants(shape).map { variant in
                switch variant {
                case .object(var object):
                    if let name = token {
                        let member = object.shape(of: name)
                        if case .never = member { return variant }  // never there: never reached
                        let required = object.isRequired(name) && !mayRemove
                        object.set(name, visit(member, rest, algebra), required: required)
                    } else {
                        for i in object.properties.indices {
                            object.properties[i].shape = visit(object.properties[i].shape, rest, algebra)
                        }
                        object.additional = visit(object.additional, rest, algebra)
                        if mayRemove { object.required = [] }
                    }
                    return .object(object)
                case .array(let items):
                    guard let name = token else { return .array(visit(items, rest, algebra)) }
                    // One element changes; the others stay as they were.
                    guard JSON.arrayIndex(name) != nil else { return variant }
                    return .array(.union([items, visit(items, rest, algebra)]))
                default:
                    return variant
                }
            })
    }
}
