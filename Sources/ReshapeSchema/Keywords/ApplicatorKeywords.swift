import ReshapeJSON

// In-place applicators (same instance location): allOf, anyOf, oneOf, not, if/then/else,
// $ref, $dynamicRef. Their subschemas' annotations count for unevaluated* when they pass.

final class AllOfKeyword: KeywordCheck, @unchecked Sendable {
    let nodes: [SchemaNode]
    init(_ nodes: [SchemaNode], _ site: KeywordSite) {
        self.nodes = nodes
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var valid = true
        for node in nodes where !e.inPlace(node, instance, path, &annotations, collect: collect) {
            valid = false
            if e.stopsAtFirstFailure { return false }
        }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        for node in nodes where !e.evaluate(node, instance) { return false }
        return true
    }
}

final class AnyOfKeyword: KeywordCheck, @unchecked Sendable {
    let nodes: [SchemaNode]
    init(_ nodes: [SchemaNode], _ site: KeywordSite) {
        self.nodes = nodes
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var any = false
        // When collecting, every passing branch contributes annotations, so all are tried.
        for node in nodes where e.quietly({ $0.inPlace(node, instance, path, &annotations, collect: collect) }) {
            any = true
            if !collect { break }
        }
        return any || fail(&e, path, "matches none of the \(nodes.count) alternatives")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        for node in nodes where e.evaluate(node, instance) { return true }
        return false
    }
}

final class OneOfKeyword: KeywordCheck, @unchecked Sendable {
    let nodes: [SchemaNode]
    init(_ nodes: [SchemaNode], _ site: KeywordSite) {
        self.nodes = nodes
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var matches = 0
        var local = Annotations()
        for node in nodes where e.quietly({ $0.inPlace(node, instance, path, &local, collect: collect) }) {
            matches += 1
            if matches > 1 { break }
        }
        if matches == 1 {
            if collect { annotations.merge(local) }
            return true
        }
        return fail(
            &e, path,
            matches == 0
                ? "matches none of the \(nodes.count) alternatives"
                : "matches more than one alternative")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        var matches = 0
        for node in nodes where e.evaluate(node, instance) {
            matches += 1
            if matches > 1 { return false }
        }
        return matches == 1
    }
}

final class NotKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    init(_ node: SchemaNode, _ site: KeywordSite) {
        self.node = node
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var ignored = Annotations()
        if !e.quietly({ $0.evaluate(node, instance, path, &ignored, collect: false) }) { return true }
        return fail(&e, path, "\(Self.brief(instance)) matches a schema it must not match")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        !e.evaluate(node, instance)
    }
}

/// `if` / `then` / `else`. Kept even without then/else: `if`'s annotations still count.
final class ConditionalKeyword: KeywordCheck, @unchecked Sendable {
    let condition: SchemaNode
    let then: SchemaNode?
    let otherwise: SchemaNode?
    init(if condition: SchemaNode, then: SchemaNode?, else otherwise: SchemaNode?, _ site: KeywordSite) {
        self.condition = condition
        self.then = then
        self.otherwise = otherwise
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        if then == nil && otherwise == nil && !collect { return true }
        if e.quietly({ $0.inPlace(condition, instance, path, &annotations, collect: collect) }) {
            guard let then else { return true }
            return e.inPlace(then, instance, path, &annotations, collect: collect)
                || fail(&e, path, "the \"if\" schema matched but \"then\" failed")
        }
        guard let otherwise else { return true }
        return e.inPlace(otherwise, instance, path, &annotations, collect: collect)
            || fail(&e, path, "the \"if\" schema did not match and \"else\" failed")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        if then == nil && otherwise == nil { return true }
        if e.evaluate(condition, instance) {
            guard let then else { return true }
            return e.evaluate(then, instance)
        }
        guard let otherwise else { return true }
        return e.evaluate(otherwise, instance)
    }
}

final class RefKeyword: KeywordCheck, @unchecked Sendable {
    /// May be a node still being compiled (recursive schemas). Unowned: the compilation's
    /// node list owns every node, so a recursive schema is not a reference cycle.
    unowned(unsafe) let target: SchemaNode
    init(_ target: SchemaNode, _ site: KeywordSite) {
        self.target = target
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        e.inPlace(target, instance, path, &annotations, collect: collect)
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        Unmanaged.passUnretained(target)._withUnsafeGuaranteedRef { e.evaluate($0, instance) }
    }
}

/// `$dynamicRef`: `fallback` is the static resolution; when `anchor` is set, the outermost
/// resource in the dynamic scope declaring that `$dynamicAnchor` wins.
final class DynamicRefKeyword: KeywordCheck, @unchecked Sendable {
    /// Unowned for the same reason as `RefKeyword.target`.
    unowned(unsafe) let fallback: SchemaNode
    let anchor: String?
    init(_ fallback: SchemaNode, anchor: String?, _ site: KeywordSite) {
        self.fallback = fallback
        self.anchor = anchor
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var target = fallback
        if let anchor {
            for resource in e.scope {
                if let node = e.anchors.anchors[resource][anchor] {
                    target = node
                    break
                }
            }
        }
        return e.inPlace(target, instance, path, &annotations, collect: collect)
    }

    /// Only static ones get here: with a dynamic `$dynamicRef` anywhere, the whole run is a
    /// tree evaluation, since the dynamic scope is not tracked on the tape.
    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        anchor == nil ? e.evaluate(fallback, instance) : super.check(tape: &e, instance)
    }
}
