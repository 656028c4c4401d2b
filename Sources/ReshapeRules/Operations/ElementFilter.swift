import ReshapeJSON

// Removing elements while walking an array once, in place and in order (drops by
// `validate`, `coerce`, `each` and `at`).

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
