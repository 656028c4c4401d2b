import ReshapeJSON

// Moving a container out of a JSON value. `switch value { case .object(var o): value = .null }`
// leaves the storage shared with the switch's copy of `value`, so the first mutation copies
// the whole container (for an array of records, every record). Binding with `guard
// case`/`if case` and then overwriting the source does hand over the only reference.

extension JSON {
    /// The object, leaving `.null` behind, so the caller holds the only reference to its storage;
    /// nil (and `self` untouched) when this is not an object.
    @inline(__always)
    mutating func takeObject() -> JSONObject? {
        guard case .object(let object) = self else { return nil }
        self = .null
        return object
    }

    /// The elements, leaving `.null` behind; nil (and `self` untouched) when this is not an array.
    @inline(__always)
    mutating func takeArray() -> [JSON]? {
        guard case .array(let elements) = self else { return nil }
        self = .null
        return elements
    }
}
