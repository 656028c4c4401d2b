import ReshapeJSON

/// One quiet validation over a tape: `Evaluation` in quiet mode, with node indices for
/// instances. Keywords without a tape check, and schemas that gather annotations for
/// `unevaluated*`, run the tree evaluator on the one value they look at (`fallback`).
struct TapeEvaluation {
    let view: TapeView
    unowned(unsafe) let anchors: DynamicAnchorTable
    let maxDepth: Int
    /// Schemas applied so far at the current instance location (bounds `$ref` cycles).
    var depth = 0
    /// Times the tree evaluator ran; tests check that common schemas never need it.
    var fallbacks = 0

    init(view: TapeView, anchors: DynamicAnchorTable, maxDepth: Int) {
        self.view = view
        self.anchors = anchors
        self.maxDepth = maxDepth
    }

    /// `Evaluation.evaluate` for a tape node: same constants, depth guard and keyword order.
    mutating func evaluate(_ schema: SchemaNode, _ node: Int) -> Bool {
        if let constant = schema.constant { return constant }
        if schema.tracksEvaluated { return fallback(node) { $0.evaluate(schema, $1, "", &$2, collect: false) } }
        if depth >= maxDepth { return false }
        let type = schema.tapeType
        if type != 0, !TypeKeyword.matches(TypeMask(rawValue: type & ~SchemaNode.hasType), view, node) { return false }
        let keywords = schema.tapeKeywords
        if keywords.isEmpty { return true }
        depth += 1
        defer { depth -= 1 }
        for keyword in keywords where !keyword._withUnsafeGuaranteedRef({ $0.check(tape: &self, node) }) {
            return false
        }
        return true
    }

    /// A subschema at a child location: a new chain for the depth guard, as in `Evaluation.at`.
    @inline(__always)
    mutating func at(_ schema: SchemaNode, _ node: Int) -> Bool {
        // Most member schemas are a lone `type`: checked here, without a call.
        let leaf = schema.tapeLeafType
        if leaf != 0 {
            return maxDepth > 0 && TypeKeyword.matches(TypeMask(rawValue: leaf & ~SchemaNode.hasType), view, node)
        }
        let outer = depth
        depth = 0
        defer { depth = outer }
        return evaluate(schema, node)
    }

    /// Runs `body` on a quiet tree evaluation at this depth with the node materialized.
    mutating func fallback(_ node: Int, _ body: (inout Evaluation, JSON, inout Annotations) -> Bool) -> Bool {
        fallbacks += 1
        let value = view.materialize(node)
        var evaluation = Evaluation(anchors: anchors, maxDepth: maxDepth, reporting: false, maxErrors: 0)
        evaluation.depth = depth
        var annotations = Annotations()
        return body(&evaluation, value, &annotations)
    }
}
