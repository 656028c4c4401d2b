import ReshapeJSON

extension JSONPatch {
    /// Why a patch does not apply to a document.
    public enum ApplyFailure: Error, Equatable, Sendable {
        /// The operation at `index` names a location that is not there (or an array index out
        /// of range).
        case pathNotFound(index: Int, path: String)
    }

    /// `document` with every operation applied in order (RFC 6902 §4: `add` of an existing member
    /// replaces it in place; `add` at an array index inserts; `-` appends).
    public func applied(to document: JSON) throws(ApplyFailure) -> JSON {
        fatalError("JSONPatch.applied: not built yet")
    }
}
