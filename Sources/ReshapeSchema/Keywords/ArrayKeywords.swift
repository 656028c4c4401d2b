import ReshapeJSON

// Keywords on arrays: prefixItems, items, contains (with min/maxContains), min/maxItems,
// uniqueItems.

final class PrefixItemsKeyword: KeywordCheck, @unchecked Sendable {
    let nodes: [SchemaNode]
    init(_ nodes: [SchemaNode], _ site: KeywordSite) {
        self.nodes = nodes
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .array(let elements) = instance else { return true }
        let count = min(nodes.count, elements.count)
        var valid = true
        for i in 0..<count where !e.at(nodes[i], elements[i], e.child(path, i)) {
            valid = false
            if e.stopsAtFirstFailure { return false }
        }
        if collect { annotations.evaluatedPrefix(count) }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .array else { return true }
        return e.view.allElements(instance) { i, element in i >= nodes.count || e.at(nodes[i], element) }
    }
}

/// `items`: every element after those `prefixItems` covers.
final class ItemsKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    let start: Int
    init(_ node: SchemaNode, start: Int, _ site: KeywordSite) {
        self.node = node
        self.start = start
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .array(let elements) = instance else { return true }
        var valid = true
        var i = start
        while i < elements.count {
            if !e.at(node, elements[i], e.child(path, i)) {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
            i += 1
        }
        if collect { annotations.evaluatedAllItems() }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .array else { return true }
        return e.view.allElements(instance) { i, element in i < start || e.at(node, element) }
    }
}

final class ContainsKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    let minimum: Int
    let maximum: Int?
    init(_ node: SchemaNode, min: Int, max: Int?, _ site: KeywordSite) {
        self.node = node
        minimum = min
        maximum = max
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .array(let elements) = instance else { return true }
        var matched = 0
        for (i, element) in elements.enumerated() where e.quietly({ $0.at(node, element, "") }) {
            matched += 1
            if collect { annotations.evaluatedItem(at: i) } else if maximum == nil && matched >= minimum { return true }
        }
        if matched < minimum {
            return fail(
                &e, path, minimum == 1 ? "no element matches" : "\(matched) elements match, fewer than \(minimum)")
        }
        if let maximum, matched > maximum {
            return fail(&e, path, "\(matched) elements match, more than \(maximum)")
        }
        return true
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .array else { return true }
        var matched = 0
        let stoppedEarly = !e.view.allElements(instance) { _, element in
            if e.at(node, element) { matched += 1 }
            // Enough matches and no upper bound: the rest cannot change the answer.
            return maximum != nil || matched < minimum
        }
        if stoppedEarly { return true }
        if let maximum, matched > maximum { return false }
        return matched >= minimum
    }
}

/// `minItems` / `maxItems`.
final class ItemCountKeyword: KeywordCheck, @unchecked Sendable {
    let limit: Int
    let upper: Bool
    init(_ limit: Int, upper: Bool, _ site: KeywordSite) {
        self.limit = limit
        self.upper = upper
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .array(let elements) = instance else { return true }
        if upper ? elements.count <= limit : elements.count >= limit { return true }
        return fail(&e, path, "\(elements.count) items, \(upper ? "more" : "fewer") than \(limit)")
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .array else { return true }
        let count = e.view.count(instance)
        return upper ? count <= limit : count >= limit
    }
}

final class UniqueItemsKeyword: KeywordCheck, @unchecked Sendable {
    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .array(let elements) = instance, elements.count > 1,
            let i = StrictEquality.firstDuplicate(in: elements)
        else { return true }
        return fail(&e, path, "item \(i) (\(Self.brief(elements[i]))) repeats an earlier item")
    }
}
