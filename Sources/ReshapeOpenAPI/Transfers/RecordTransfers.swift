import ReshapeJSON
import ReshapeRules

// The record operations: each works on one object or on every object of an array
// (`ShapeAlgebra.mapRecords`), and anything else is `not-an-object`.

/// `rename: { old: new }` — in order; an absent `old` leaves the record alone, and a present
/// one replaces any `new`.
extension RenameOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.mapRecords(input) { object in
            var object = object
            for (from, to) in renames where from != to {
                let moved = object.shape(of: from)
                if case .never = moved { continue }
                let target = object.isRequired(from) ? moved : .union([moved, object.shape(of: to)])
                let required = object.isRequired(from) || object.isRequired(to)
                object.remove(from)
                object.set(to, target, required: required)
            }
            return .object(object)
        }
    }
}

/// `drop: [fields]`.
extension DropOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.mapRecords(input) { object in
            var object = object
            for field in fields { object.remove(field) }
            return .object(object)
        }
    }
}

/// `keep: [fields]` — no other member is left.
extension KeepOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.mapRecords(input) { object in
            var kept = ObjectShape(additional: .never)
            for field in fields where !kept.properties.contains(where: { $0.name == field }) {
                let shape = object.shape(of: field)
                if case .never = shape { continue }
                kept.set(field, shape, required: object.isRequired(field))
            }
            return .object(kept)
        }
    }
}

/// `default: { field: value }` — a field absent or `null` gets the value.
extension DefaultOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.mapRecords(input) { object in
            var object = object
            for member in defaults {
                let present = algebra.removingNull(object.shape(of: member.key))
                object.set(member.key, .union([present, .constant(member.value)]), required: true)
            }
            return .object(object)
        }
    }
}

/// `set: { field: value }` — a constant as written, or a template's string.
extension SetOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.mapRecords(input) { object in
            var object = object
            for assignment in assignments {
                object.set(assignment.name, assignment.constant.map(Shape.constant) ?? .string, required: true)
            }
            return .object(object)
        }
    }
}

/// `coerce: { field: TYPE, invalid }` — a present, non-null field becomes the target type, or
/// the record fails (`fail`), is dropped (`drop`) or stays partly converted (`keep`).
extension CoerceOperation: SchemaTransfer {
    package func outputShape(for input: Shape, _ algebra: ShapeAlgebra) -> Shape {
        algebra.mapRecords(input, dropsRecord: invalid == .drop) { object in
            var object = object
            for (name, target) in fields {
                let before = object.shape(of: name)
                if case .never = before { continue }
                let converted: Shape
                switch target {
                case .integer: converted = .scalars(.integer)
                case .number: converted = .scalars(.number)
                case .boolean: converted = .scalars(.boolean)
                case .string: converted = .string
                }
                let after: Shape =
                    invalid == .keep
                    ? .union([before, converted])
                    : .union([converted] + (algebra.mayBeNull(before) ? [.null] : []))
                object.set(name, after, required: object.isRequired(name))
            }
            return .object(object)
        }
    }
}
