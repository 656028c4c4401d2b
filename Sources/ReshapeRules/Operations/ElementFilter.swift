import ReshapeJSON

// Removing elements while walking an array once, in place and in order (drops by
// `validate`, `coerce`, `each` and `at`).

enum ElementFilter {
    /// Runs `check` on each element of `elements` (which must be uniquely held), removing those for
    /// which it returns false, keeping order.
    @inline(__always)
    static func removeRejected(
        from elements: inout [JSON],
        _ check: (inout JSON, Int) throws(PipelineError) -> Bool
    ) throws(PipelineError) {
        var kept = 0
        for i in elements.indices {
            guard try check(&elements[i], i) else { continue }
            if kept != i { elements.swapAt(kept, i) }
            kept += 1
        }
        if kept < elements.count { elements.removeLast(elements.count - kept) }
    }

    /// Removes the elements at `positions` (ascending), keeping the order of the rest.
    static func remove<Element>(_ positions: [Int], from elements: inout [Element]) {
        var next = 0
        var kept = 0
        for i in elements.indices {
            if next < positions.count && positions[next] == i {
                next += 1
                continue
            }
            if kept != i { elements.swapAt(kept, i) }
            kept += 1
        }
        elements.removeLast(elements.count - kept)
    }
}
