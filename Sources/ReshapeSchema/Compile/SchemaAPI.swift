import ReshapeJSON

/// How schemas are compiled and checked.
public struct SchemaOptions: Sendable {
    /// When true, `format` is an assertion (invalid dates etc. fail); by default it only annotates.
    /// A type's root schema can also turn this on for itself with `"x-assert-format": true`.
    public var assertFormat: Bool
    /// Most schemas applied in a chain to one instance value (through `$ref`, `allOf`...);
    /// guards against schemas that recurse without consuming the instance. Exceeding it is a
    /// violation. Nesting of the instance itself is not limited here (the parser limits it).
    public var maxDepth: Int
    /// Perfect hashes of property names and the fused `properties`/`required`/
    /// `additionalProperties` check on the tape; off only in tests that compare the two paths.
    var memberTables = true

    public init(assertFormat: Bool = false, maxDepth: Int = 256) {
        self.assertFormat = assertFormat
        self.maxDepth = maxDepth
    }
}

/// One reason an instance does not match a schema.
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// JSON Pointer to the failing part of the instance ("" is the whole instance).
    public var instancePointer: String
    /// The keyword that failed, e.g. "minimum".
    public var keyword: String
    /// JSON Pointer to that keyword inside the schema (through `$ref`s as evaluated).
    public var schemaPointer: String
    /// Human-readable explanation, e.g. "-3 is less than 0".
    public var reason: String

    public init(instancePointer: String, keyword: String, schemaPointer: String, reason: String) {
        self.instancePointer = instancePointer
        self.keyword = keyword
        self.schemaPointer = schemaPointer
        self.reason = reason
    }

    /// "/age: minimum: -3 is less than 0".
    public var description: String { "\(instancePointer): \(keyword): \(reason)" }
}

/// A schema that cannot be compiled: bad keyword value, unknown `$ref`, regex that does not compile.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// Where in the schema the problem is.
    public var schemaPointer: String
    /// The rule-file type the schema belongs to, when compiled through `SchemaSet`.
    public var typeName: String?

    public init(message: String, schemaPointer: String, typeName: String? = nil) {
        self.message = message
        self.schemaPointer = schemaPointer
        self.typeName = typeName
    }

    public var description: String {
        let location =
            typeName.map { "type \($0) at \(schemaPointer.isEmpty ? "/" : schemaPointer)" }
            ?? (schemaPointer.isEmpty ? "/" : schemaPointer)
        return "\(location): \(message)"
    }
}
