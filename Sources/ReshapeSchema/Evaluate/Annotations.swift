/// What the keywords of one schema evaluated at one instance location, as far as
/// `unevaluatedProperties` / `unevaluatedItems` need to know. Only gathered when a schema
/// on the path uses those keywords; until something is recorded it holds no storage, so the
/// plain validation path creates and drops it for free.
struct Annotations {
    private final class Storage {
        var properties: Set<String> = []
        var itemPrefix = 0
        var allItems = false
        var itemIndices: Set<Int> = []
    }

    private var storage: Storage?

    private mutating func writable() -> Storage {
        if let storage { return storage }
        let created = Storage()
        storage = created
        return created
    }

    /// Property names evaluated (`properties`, `patternProperties`, `additionalProperties`...).
    var properties: Set<String> {
        storage?.properties ?? []
    }

    mutating func evaluatedProperty(_ name: String) { writable().properties.insert(name) }
    mutating func evaluatedProperties<S: Sequence>(_ names: S) where S.Element == String {
        writable().properties.formUnion(names)
    }

    /// Items `0..<count` were evaluated (`prefixItems`).
    mutating func evaluatedPrefix(_ count: Int) {
        let storage = writable()
        storage.itemPrefix = max(storage.itemPrefix, count)
    }

    /// Every item was evaluated (`items`, `unevaluatedItems`).
    mutating func evaluatedAllItems() { writable().allItems = true }

    /// One item matched `contains`.
    mutating func evaluatedItem(at index: Int) { writable().itemIndices.insert(index) }

    func hasProperty(_ name: String) -> Bool { storage?.properties.contains(name) ?? false }

    func evaluatedItem(_ index: Int) -> Bool {
        guard let storage else { return false }
        return storage.allItems || index < storage.itemPrefix || storage.itemIndices.contains(index)
    }

    mutating func merge(_ other: Annotations) {
        guard let theirs = other.storage else { return }
        let mine = writable()
        if !theirs.properties.isEmpty { mine.properties.formUnion(theirs.properties) }
        mine.itemPrefix = max(mine.itemPrefix, theirs.itemPrefix)
        mine.allItems = mine.allItems || theirs.allItems
        if !theirs.itemIndices.isEmpty { mine.itemIndices.formUnion(theirs.itemIndices) }
    }
}
