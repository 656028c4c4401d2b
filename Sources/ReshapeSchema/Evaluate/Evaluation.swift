import ReshapeJSON

/// One validation run: walks compiled nodes over an instance. In quiet mode (`isValid`)
/// it stops at the first failure and builds no strings; in reporting mode it collects
/// violations with instance pointers.
struct Evaluation {
    let anchors: DynamicAnchorTable
    let maxDepth: Int
    var reporting: Bool
    var maxErrors: Int
    var violations: [SchemaViolation] = []
    /// Resources entered, outermost first (only kept when `$dynamicRef` is in use).
    var scope: [Int] = []
    var depth = 0
    /// Whether any `$dynamicRef` exists; otherwise the scope stack is not kept.
    let tracksScope: Bool

    init(anchors: DynamicAnchorTable, maxDepth: Int, reporting: Bool, maxErrors: Int) {
        self.anchors = anchors
        self.maxDepth = maxDepth
        self.reporting = reporting
        self.maxErrors = maxErrors
        tracksScope = anchors.isUsed
    }

    /// In quiet mode, or once `maxErrors` are collected, the first failure decides.
    var stopsAtFirstFailure: Bool { !reporting || violations.count >= maxErrors }

    mutating func report(_ path: String, _ site: KeywordSite, _ reason: @autoclosure () -> String) {
        guard reporting, violations.count < maxErrors else { return }
        violations.append(
            SchemaViolation(
                instancePointer: path, keyword: site.name,
                schemaPointer: site.location, reason: reason()))
    }

    /// Runs `body` without reporting (for branches whose failure is not itself an error).
    mutating func quietly<T>(_ body: (inout Evaluation) -> T) -> T {
        let saved = reporting
        reporting = false
        defer { reporting = saved }
        return body(&self)
    }

    @inline(__always) func child(_ path: String, _ key: String) -> String {
        reporting ? path + "/" + JSONPointer.escape(key) : ""
    }

    @inline(__always) func child(_ path: String, _ index: Int) -> String {
        reporting ? path + "/" + String(index) : ""
    }

    /// Evaluates `node` against `instance`. `annotations` starts empty and receives what this
    /// node evaluated when `collect` is true (the caller merges it only if the node passed).
    mutating func evaluate(
        _ node: SchemaNode, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        if let constant = node.constant {
            if !constant, reporting, violations.count < maxErrors {
                violations.append(
                    SchemaViolation(
                        instancePointer: path, keyword: "false",
                        schemaPointer: node.location, reason: "no value is allowed here"))
            }
            return constant
        }
        depth += 1
        defer { depth -= 1 }
        if depth > maxDepth {
            if reporting, violations.count < maxErrors {
                violations.append(
                    SchemaViolation(
                        instancePointer: path, keyword: "$ref", schemaPointer: node.location,
                        reason: "more than \(maxDepth) schemas applied to one value (a $ref cycle?)"))
            }
            return false
        }
        var pushed = false
        if tracksScope, scope.last != node.resource {
            scope.append(node.resource)
            pushed = true
        }
        defer { if pushed { scope.removeLast() } }

        let track = collect || node.tracksEvaluated
        var valid = true
        for keyword in node.unretainedKeywords
        where !keyword._withUnsafeGuaranteedRef({ $0.check(&self, instance, path, &annotations, collect: track) }) {
            valid = false
            if stopsAtFirstFailure { break }
        }
        return valid
    }

    /// Evaluates an in-place subschema (same instance location) and merges its annotations on success.
    @inline(__always)
    mutating func inPlace(
        _ node: SchemaNode, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var local = Annotations()
        let valid = evaluate(node, instance, path, &local, collect: collect)
        if valid && collect { annotations.merge(local) }
        return valid
    }

    /// Applies an additional/unevaluated subschema; a `false` one gets a message naming the keyword.
    mutating func leftover(
        _ node: SchemaNode, _ site: KeywordSite, _ value: JSON,
        _ path: String, _ reason: @autoclosure () -> String
    ) -> Bool {
        if node.constant == false {
            report(path, site, reason())
            return false
        }
        return at(node, value, path)
    }

    /// Evaluates a subschema at a child instance location (annotations there are separate).
    @inline(__always)
    mutating func at(_ node: SchemaNode, _ instance: JSON, _ path: String) -> Bool {
        var local = Annotations()
        // Depth bounds chains of schemas applied to one location (a ref cycle that never
        // consumes the instance); moving into a child starts a new chain. How deep the
        // instance itself goes is bounded by the parser's depth limit.
        let outer = depth
        depth = 0
        defer { depth = outer }
        return evaluate(node, instance, path, &local, collect: false)
    }
}
