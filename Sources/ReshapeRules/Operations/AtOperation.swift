import ReshapeJSON

/// `at: { path: /objects/*/addresses, do: [ ...steps ] }` — applies steps at every place
/// the path reaches. The path is a JSON Pointer whose `*` tokens match every element of an
/// array or every member of an object; parts of the path that do not exist are simply not
/// reached. A value a nested step drops is removed from its array or object.
/// Error and drop pointers are prefixed with the place's actual path.
package struct AtOperation: TransformOperation {
    /// Path tokens; `nil` stands for the wildcard `*`.
    package let path: [String?]
    package let body: Pipeline

    package init(path: [String?], body: Pipeline) {
        self.path = path
        self.body = body
    }

    static func compile(_ argument: OperationArgument, _ context: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object(allowing: ["path", "do"])
        guard let pathArgument = argument.member("path", of: object) else { throw argument.error("missing 'path'") }
        guard case .string(let text) = pathArgument.value, let pointer = JSONPointer(text) else {
            throw pathArgument.error("'path' must be a JSON Pointer such as /objects/*/addresses")
        }
        guard let doArgument = argument.member("do", of: object) else {
            throw argument.error("missing 'do' (the steps to apply)")
        }
        let body: Pipeline
        do {
            body = try OperationCatalog.compile(steps: doArgument.value, context: context)
        } catch {
            throw OperationConfigError(
                message: error.pointer.isEmpty ? "at: 'do' \(error.message)" : error.message,
                pointer: doArgument.pointer + error.pointer)
        }
        return AtOperation(path: pointer.tokens.map { $0 == "*" ? nil : $0 }, body: body)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        if path.isEmpty {
            // The whole value: a drop stays visible to an enclosing `each`.
            try body.apply(to: &value, context: &context)
            return
        }
        _ = try visit(&value, depth: 0, context: &context)
    }

    /// Walks one level of the path; returns true when the value itself was dropped.
    private func visit(_ value: inout JSON, depth: Int, context: inout TransformContext) throws(PipelineError) -> Bool {
        if depth == path.count {
            context.removesCurrentValue = false
            try body.apply(to: &value, context: &context)
            defer { context.removesCurrentValue = false }
            return context.removesCurrentValue
        }
        let token = path[depth]
        if var object = value.takeObject() {
            defer { value = .object(object) }
            if let token {
                guard let i = object.index(forKey: token) else { return false }
                if try visitChild(&object.members[i].value, step: .key(token), depth: depth, context: &context) {
                    object.members.remove(at: i)
                }
            } else {
                var kept = 0
                for i in object.members.indices {
                    if try visitChild(
                        &object.members[i].value, step: .key(object.members[i].key), depth: depth, context: &context)
                    {
                        continue
                    }
                    if kept != i { object.members.swapAt(kept, i) }
                    kept += 1
                }
                if kept < object.members.count { object.members.removeLast(object.members.count - kept) }
            }
        } else if var elements = value.takeArray() {
            defer { value = .array(elements) }
            if let token {
                guard let i = JSON.arrayIndex(token), i < elements.count else { return false }
                if try visitChild(&elements[i], step: .index(i), depth: depth, context: &context) {
                    elements.remove(at: i)
                }
            } else {
                try ElementFilter.removeRejected(from: &elements) {
                    (element: inout JSON, i: Int) throws(PipelineError) -> Bool in
                    try !visitChild(&element, step: .index(i), depth: depth, context: &context)
                }
            }
        }
        return false
    }

    @inline(__always)
    private func visitChild(_ child: inout JSON, step: PathStep, depth: Int, context: inout TransformContext)
        throws(PipelineError) -> Bool
    {
        let droppedBefore = context.dropped.count
        let removed: Bool
        do {
            removed = try visit(&child, depth: depth + 1, context: &context)
        } catch {
            throw error.nested(under: step.pointer)
        }
        if context.dropped.count > droppedBefore { context.rebaseDropped(from: droppedBefore, under: step.pointer) }
        return removed
    }

    /// One level of a reached place; its pointer text is built only for errors and drops.
    private enum PathStep {
        case key(String)
        case index(Int)
        var pointer: String {
            switch self {
            case .key(let key): JSONPointer.appending(key: key, to: "")
            case .index(let index): JSONPointer.appending(index: index, to: "")
            }
        }
    }
}

extension AtOperation {
    /// Only a path that starts with `*`: the body then sees inside one element at a time.
    package var isElementLocal: Bool { path.first.map { $0 == nil } ?? false }
}
