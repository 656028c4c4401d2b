import ReshapeJSON

/// Compiles a set of named schemas (rule-file "types") that may `$ref` each other by bare name
/// (`"Address"`) or by `"#/types/Address"`, plus ordinary JSON Schema refs
/// (`$defs`, `$id`, `$anchor`, `$dynamicRef`...). Compiled once; validators are cheap to use
/// from many threads.
public struct SchemaSet: Sendable {
    private let validators: [String: Validator]

    /// Throws the first schema that does not compile, naming its type and pointer.
    public init(types: [(name: String, schema: JSON)], options: SchemaOptions = .init(),
                resolveRemote: (@Sendable (String) -> JSON?)? = nil) throws(SchemaError) {
        var built: [String: Validator] = [:]
        for (name, schema) in types {
            do {
                built[name] = try Validator(schema: schema, options: options, resolveRemote: resolveRemote)
            } catch {
                var named = error
                named.typeName = name
                throw named
            }
        }
        validators = built
    }

    /// The validator for one type, or nil if no type has that name.
    public func validator(named name: String) -> Validator? { validators[name] }
}
