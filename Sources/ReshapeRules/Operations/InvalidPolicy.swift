import ReshapeJSON

/// What `validate` and `coerce` do with a value they reject.
public enum InvalidPolicy: String, Sendable, CaseIterable {
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

enum ElementFilter {
    /// Runs `check` on each element of `elements` (which must be uniquely held), removing those for
    /// which it returns false, keeping order.
    @inline(__always)
    static func removeRejected(from elements: inout [JSON],
                               _ check: (inout JSON, Int) throws(PipelineError) -> Bool) throws(PipelineError) {
        var kept = 0
        for i in elements.indices {
            guard try check(&elements[i], i) else { continue }
            if kept != i { elements.swapAt(kept, i) }
            kept += 1
        }
        if kept < elements.count { elements.removeLast(elements.count - kept) }
    }
}
