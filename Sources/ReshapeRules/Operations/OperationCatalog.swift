import ReshapeJSON

/// Turns the `transform` steps of a rule file into compiled operations. The rule loader
/// calls this; by the time it returns, every option is checked and nothing is parsed per request.
package enum OperationCatalog {
    /// Every operation name a step may use, in the order the docs list them.
    package static let names: [String] = compilers.map(\.name)

    typealias Compiler =
        @Sendable (OperationArgument, OperationCompileContext) throws(OperationConfigError) -> any TransformOperation

    static let compilers: [(name: String, compile: Compiler)] = [
        ("select", SelectOperation.compile),
        ("keyed-to-array", KeyedToArrayOperation.compile),
        ("array-to-keyed", ArrayToKeyedOperation.compile),
        ("each", EachOperation.compile),
        ("at", AtOperation.compile),
        ("rename", RenameOperation.compile),
        ("drop", DropOperation.compile),
        ("keep", KeepOperation.compile),
        ("default", DefaultOperation.compile),
        ("set", SetOperation.compile),
        ("coerce", CoerceOperation.compile),
        ("sort", SortOperation.compile),
        ("validate", ValidateOperation.compile),
        ("wrap", WrapOperation.compile),
        ("merge", MergeOperation.compile),
        ("require", RequireOperation.compile),
    ]

    /// Compiles one element of a `transform` array: an object with exactly one member,
    /// operation name → argument.
    package static func compile(step: JSON, context: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        guard case .object(let object) = step, object.count == 1, let member = object.members.first else {
            throw OperationConfigError(
                message:
                    "a transform step must be an object with exactly one member, the operation name (one of: \(names.joined(separator: ", ")))",
                pointer: "")
        }
        if member.key == "expand" {
            // Follow-up fetches are cut out of the route's transform by the loader; anywhere
            // else (each, at, a body's or an expand's transform) they cannot run.
            throw OperationConfigError(
                message: "expand is only allowed at the top level of a route's transform",
                pointer: JSONPointer.appending(key: member.key, to: ""))
        }
        guard let compiler = compilers.first(where: { $0.name == member.key }) else {
            var message = "unknown operation '\(member.key)'"
            if let suggestion = closestName(to: member.key) { message += "; did you mean '\(suggestion)'?" }
            message += " (known operations: \(names.joined(separator: ", ")))"
            throw OperationConfigError(message: message, pointer: JSONPointer.appending(key: member.key, to: ""))
        }
        let argument = OperationArgument(
            operation: member.key, value: member.value,
            pointer: JSONPointer.appending(key: member.key, to: ""))
        return try compiler.compile(argument, context)
    }

    /// Compiles an array of steps (a route's `transform`, or an `each`/`at` body); error
    /// pointers start with the step's index, `/0/...`.
    package static func compile(steps: JSON, context: OperationCompileContext) throws(OperationConfigError) -> Pipeline
    {
        guard case .array(let elements) = steps else {
            throw OperationConfigError(
                message: "expected a list of transform steps, found \(steps.kindName)", pointer: "")
        }
        var compiled: [any TransformOperation] = []
        compiled.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                compiled.append(try compile(step: element, context: context))
            } catch {
                throw error.nested(under: JSONPointer.appending(index: index, to: ""))
            }
        }
        return Pipeline(steps: compiled, written: elements)
    }

    /// Every mistake in an array of steps, one per faulty step (the first within each), for
    /// a checker that reports all problems at once; empty when `compile(steps:)` would succeed.
    package static func problems(in steps: JSON, context: OperationCompileContext) -> [OperationConfigError] {
        guard case .array(let elements) = steps else {
            return [
                OperationConfigError(
                    message: "expected a list of transform steps, found \(steps.kindName)", pointer: "")
            ]
        }
        var problems: [OperationConfigError] = []
        for (index, element) in elements.enumerated() {
            do {
                _ = try compile(step: element, context: context)
            } catch {
                problems.append(error.nested(under: JSONPointer.appending(index: index, to: "")))
            }
        }
        return problems
    }

    /// The known name nearest to a misspelling, when it is close enough to be a likely typo.
    static func closestName(to name: String) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in names {
            let distance = editDistance(Array(name.utf8), Array(candidate.utf8))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, best.name.utf8.count / 3) else { return nil }
        return best.name
    }

    /// Levenshtein distance over bytes.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
