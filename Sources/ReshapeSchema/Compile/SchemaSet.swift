import ReshapeJSON

/// Compiles a set of named schemas (rule-file "types") that may `$ref` each other by bare name
/// (`"Address"`) or by `"#/types/Address"`, plus ordinary JSON Schema refs
/// (`$defs`, `$id`, `$anchor`, `$dynamicRef`...). Compiled once; validators are cheap to use
/// from many threads.
///
/// A type's root schema may say `"x-assert-format": true` to make `format` an assertion for
/// that type (by default `format` only annotates).
public struct SchemaSet: Sendable {
    private let validators: [String: Validator]

    /// Base URI of the document that holds all types as `{"types": {...}}`.
    static let typesBaseURI = "reshape:///types.json"

    /// Compiles every type; throws the first that does not compile, naming the type and the
    /// pointer inside it (e.g. an unknown type in a `$ref`, a `pattern` that is not a regex).
    public init(
        types: [(name: String, schema: JSON)], options: SchemaOptions = .init(),
        resolveRemote: (@Sendable (String) -> JSON?)? = nil
    ) throws(SchemaError) {
        var members = JSONObject()
        for (name, schema) in types { members.members.append(JSONMember(key: name, value: schema)) }
        let document = JSON.object(JSONObject([JSONMember(key: "types", value: .object(members))]))
        let compiler = SchemaCompiler(
            options: options, resolveRemote: resolveRemote,
            typeNames: Set(types.map(\.name)))
        try compiler.addDocument(document, uri: Self.typesBaseURI, assertFormat: options.assertFormat)
        var roots: [String: SchemaNode] = [:]
        for (name, _) in types {
            roots[name] = try compiler.node(at: .init(document: 0, pointer: "/types/" + JSONPointer.escape(name)))
        }
        try compiler.finish()
        validators = roots.mapValues { Validator(root: $0, anchors: compiler.dynamicTable, maxDepth: options.maxDepth) }
    }

    /// The validator for one type, or nil if no type has that name.
    public func validator(named name: String) -> Validator? { validators[name] }

    /// The names of all types in the set.
    public var typeNames: [String] { Array(validators.keys) }
}
