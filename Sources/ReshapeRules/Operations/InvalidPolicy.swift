import ReshapeJSON

/// What `validate` and `coerce` do with a value they reject.
package enum InvalidPolicy: String, Sendable, CaseIterable {
    /// Remove it and record a `DroppedElement`. On a single value (not an array) the value
    /// becomes `null`, and an enclosing `each`/`at` removes it from its container.
    case drop
    /// Fail the whole document (the default).
    case fail
    /// Leave it as it is and record nothing.
    case keep
}

extension TransformContext {
    /// Records a rejected value under `policy: drop`: the element at `pointer` is removed by the caller.
    mutating func recordDrop(pointer: String, type: String, reason: String) {
        dropped.append(DroppedElement(pointer: pointer, type: type, reason: reason))
    }
}
