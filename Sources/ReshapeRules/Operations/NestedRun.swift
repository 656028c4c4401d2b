import ReshapeJSON

// Running a nested pipeline (`each`, `at`) in place, and re-basing what it reports so that
// error and drop pointers are relative to the value the outer step received.

extension Pipeline {
    /// Applies every step to `value` in place.
    @inline(__always)
    func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        for step in steps {
            try step.apply(to: &value, context: &context)
        }
    }
}

extension PipelineError {
    /// The same error seen from the value that contains the failing one at `prefix`.
    func nested(under prefix: String) -> PipelineError {
        var copy = self
        copy.pointer = prefix + (pointer ?? "")
        for i in copy.errors.indices { copy.errors[i].pointer = prefix + copy.errors[i].pointer }
        return copy
    }
}

extension TransformContext {
    /// Prefixes the pointers of drops recorded since `start` (only runs when something was dropped).
    mutating func rebaseDropped(from start: Int, under prefix: String) {
        guard dropped.count > start else { return }
        for i in start..<dropped.count { dropped[i].pointer = prefix + dropped[i].pointer }
    }
}
