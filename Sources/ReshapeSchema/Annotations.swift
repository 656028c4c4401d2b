/// What the keywords of one schema evaluated at one instance location, as far as
/// `unevaluatedProperties` / `unevaluatedItems` need to know. Only gathered when a schema
/// on the path uses those keywords, so plain validation never pays for it.
struct Annotations {
    var properties: Set<String> = []
    /// Items `0..<itemPrefix` were evaluated (`prefixItems`).
    var itemPrefix = 0
    /// Every item was evaluated (`items`, `unevaluatedItems`).
    var allItems = false
    /// Items matched by `contains`.
    var itemIndices: Set<Int> = []

    mutating func merge(_ other: Annotations) {
        if !other.properties.isEmpty { properties.formUnion(other.properties) }
        itemPrefix = max(itemPrefix, other.itemPrefix)
        allItems = allItems || other.allItems
        if !other.itemIndices.isEmpty { itemIndices.formUnion(other.itemIndices) }
    }

    func evaluatedItem(_ index: Int) -> Bool {
        allItems || index < itemPrefix || itemIndices.contains(index)
    }
}
