import ReshapeJSON

/// A compiled schema, ready to check instances: used by `reshape validate`, the conformance
/// suite and each `SchemaSet` type. Compiling resolves every `$ref`, so a `Validator` that
/// exists has nothing left to fail on; sharing one across threads is safe.
public struct Validator: Sendable {
    let root: SchemaNode
    let anchors: DynamicAnchorTable
    let maxDepth: Int

    /// Base URI of a standalone schema without `$id` (relative refs resolve against it).
    static let defaultBaseURI = "reshape:///schema.json"

    /// Compiles `schema`. `resolveRemote` is asked for documents that `$ref`s name by absolute
    /// URI (without fragment); the draft 2020-12 metaschemas are built in. Throws on a schema
    /// that does not compile: bad keyword values, unresolvable refs, invalid regexes.
    public init(
        schema: JSON, options: SchemaOptions = .init(),
        resolveRemote: (@Sendable (String) -> JSON?)? = nil
    ) throws(SchemaError) {
        let compiler = SchemaCompiler(options: options, resolveRemote: resolveRemote)
        try compiler.addDocument(schema, uri: Self.defaultBaseURI, assertFormat: options.assertFormat)
        let root = try compiler.node(at: .init(document: 0, pointer: ""))
        try compiler.finish()
        self.init(root: root, anchors: compiler.dynamicTable, maxDepth: options.maxDepth)
    }

    init(root: SchemaNode, anchors: DynamicAnchorTable, maxDepth: Int) {
        self.root = root
        self.anchors = anchors
        self.maxDepth = maxDepth
    }

    /// True when the instance matches. Stops at the first failure and builds no messages, so
    /// this is the call to make per element of a large collection.
    public func isValid(_ instance: JSON) -> Bool {
        if let constant = root.constant { return constant }
        var evaluation = Evaluation(anchors: anchors, maxDepth: maxDepth, reporting: false, maxErrors: 0)
        var annotations = Annotations()
        return evaluation.evaluate(root, instance, "", &annotations, collect: false)
    }

    /// The violations found, at most `maxErrors`; empty means valid. Each names the instance
    /// location (JSON Pointer), the failing keyword, its schema location and a reason.
    public func validate(_ instance: JSON, maxErrors: Int = 100) -> [SchemaViolation] {
        var evaluation = Evaluation(anchors: anchors, maxDepth: maxDepth, reporting: true, maxErrors: max(1, maxErrors))
        var annotations = Annotations()
        _ = evaluation.evaluate(root, instance, "", &annotations, collect: false)
        return evaluation.violations
    }
}
