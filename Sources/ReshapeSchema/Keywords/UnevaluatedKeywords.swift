import ReshapeJSON

// unevaluatedItems / unevaluatedProperties: always the last keywords of their schema, they
// apply to what no other keyword of the schema (or its passing in-place subschemas) evaluated.

final class UnevaluatedItemsKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    init(_ node: SchemaNode, _ site: KeywordSite) {
        self.node = node
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .array(let elements) = instance else { return true }
        var valid = true
        for (i, element) in elements.enumerated() where !annotations.evaluatedItem(i) {
            if !e.leftover(node, site, element, e.child(path, i), "item \(i) is not allowed") {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        annotations.evaluatedAllItems()
        return valid
    }
}

final class UnevaluatedPropertiesKeyword: KeywordCheck, @unchecked Sendable {
    let node: SchemaNode
    init(_ node: SchemaNode, _ site: KeywordSite) {
        self.node = node
        super.init(site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        guard case .object(let object) = instance else { return true }
        var valid = true
        var newlyEvaluated: [String] = []
        for member in object.members where !annotations.hasProperty(member.key) {
            newlyEvaluated.append(member.key)
            if !e.leftover(
                node, site, member.value, e.child(path, member.key),
                "property \(Self.brief(.string(member.key))) is not allowed")
            {
                valid = false
                if e.stopsAtFirstFailure { return false }
            }
        }
        annotations.evaluatedProperties(newlyEvaluated)
        return valid
    }
}
