import ReshapeJSON
import ReshapeSchema

/// `validate: { type: User, invalid: fail }` (or `validate: User`) — checks against a rule
/// type. On an array each element is checked; on anything else the whole value.
/// `invalid: fail` (default) throws `validation-failed` with every violation's absolute
/// pointer (element + bad value; at most 100); `drop` removes the element and records a
/// `DroppedElement` whose reason starts with the bad value's pointer inside the element
/// (a dropped non-array value becomes `null`, and an enclosing `each`/`at` removes it);
/// `keep` leaves invalid values in place and records nothing.
package struct ValidateOperation: TransformOperation {
    package let typeName: String
    package let validator: Validator
    package let invalid: InvalidPolicy

    /// Violations reported by one `validation-failed` error, across all elements.
    static let maxReportedViolations = 100

    package init(typeName: String, validator: Validator, invalid: InvalidPolicy = .fail) {
        self.typeName = typeName
        self.validator = validator
        self.invalid = invalid
    }

    static func compile(_ argument: OperationArgument, _ context: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let typeName: String
        var typeMember: String? = nil
        var invalid = InvalidPolicy.fail
        if case .string = argument.value {
            typeName = try argument.string()
        } else {
            let object = try argument.object(allowing: ["type", "invalid"])
            guard object["type"] != nil else { throw argument.error("missing 'type' (the name of a rule type)") }
            typeName = try argument.option("type", in: object, default: "")
            typeMember = "type"
            invalid = InvalidPolicy(
                rawValue: try argument.option(
                    "invalid", in: object, default: "fail",
                    choices: InvalidPolicy.allCases.map(\.rawValue)))!
        }
        guard let validator = context.types?.validator(named: typeName) else {
            throw argument.error(
                "unknown type '\(typeName)' (types are declared under 'types:' in a rule file)", at: typeMember)
        }
        return ValidateOperation(typeName: typeName, validator: validator, invalid: invalid)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        // `keep` changes nothing and records nothing: checking would be work for no one.
        if invalid == .keep { return }
        guard case .array(var elements) = value else {
            // The whole value: checked as one.
            if validator.isValid(value) { return }
            let violations = validator.validate(value, maxErrors: ValidateOperation.maxReportedViolations)
            switch invalid {
            case .keep: return
            case .fail: throw failure(violations.map { violation($0, in: "") }, firstInvalid: "")
            case .drop:
                context.recordDrop(pointer: "", type: typeName, reason: ValidateOperation.reason(violations))
                value = .null
                context.removesCurrentValue = true
            }
            return
        }
        let rejected = try rejectedElements(
            count: elements.count, context: &context,
            isValid: { validator.isValid(elements[$0]) }, element: { elements[$0] })
        guard !rejected.isEmpty else { return }
        value = .null
        ElementFilter.remove(rejected, from: &elements)
        value = .array(elements)
    }

    /// Checks elements `0..<count` and applies the policy: the positions to remove (`drop`),
    /// none (`keep`, or all valid), or a thrown `validation-failed` (`fail`). `isValid` is the
    /// cheap check made for every element; `element` builds one for its violations, which is
    /// only needed for the invalid ones.
    func rejectedElements(
        count: Int, context: inout TransformContext, isValid: (Int) -> Bool,
        element: (Int) -> JSON
    ) throws(PipelineError) -> [Int] {
        // Fast path: one cheap check per element, no allocation while everything is valid.
        guard let firstInvalid = (0..<count).first(where: { !isValid($0) }) else { return [] }
        switch invalid {
        case .keep:
            return []
        case .fail:
            var errors: [PipelineError.Violation] = []
            for i in firstInvalid..<count where errors.count < ValidateOperation.maxReportedViolations {
                if i != firstInvalid && isValid(i) { continue }
                let prefix = JSONPointer.appending(index: i, to: "")
                for found in validator.validate(
                    element(i), maxErrors: ValidateOperation.maxReportedViolations - errors.count)
                {
                    errors.append(violation(found, in: prefix))
                }
            }
            throw failure(errors, firstInvalid: JSONPointer.appending(index: firstInvalid, to: ""))
        case .drop:
            var rejected: [Int] = []
            for i in firstInvalid..<count where i == firstInvalid || !isValid(i) {
                context.recordDrop(
                    pointer: JSONPointer.appending(index: i, to: ""), type: typeName,
                    reason: ValidateOperation.reason(validator.validate(element(i), maxErrors: 1)))
                rejected.append(i)
            }
            return rejected
        }
    }

    private func violation(_ found: SchemaViolation, in prefix: String) -> PipelineError.Violation {
        PipelineError.Violation(pointer: prefix + found.instancePointer, keyword: found.keyword, reason: found.reason)
    }

    private func failure(_ errors: [PipelineError.Violation], firstInvalid: String) -> PipelineError {
        let first = errors.first.map { " (\($0.pointer.isEmpty ? "(root)" : $0.pointer): \($0.reason))" } ?? ""
        return PipelineError(
            code: "validation-failed",
            message: "value does not match type \(typeName)\(first)",
            pointer: firstInvalid, errors: errors)
    }

    /// The first violation as `pointer-in-element: keyword: reason`.
    static func reason(_ violations: [SchemaViolation]) -> String {
        guard let first = violations.first else { return "does not match" }
        return "\(first.instancePointer.isEmpty ? "(root)" : first.instancePointer): \(first.keyword): \(first.reason)"
    }
}

// MARK: - On the tape

extension ValidateOperation {
    /// Checks records where they are on the tape; only invalid ones are built, for their
    /// violations. A single value that fails is left to the tree path, which reports it.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        if invalid == .keep { return true }
        guard value.envelopes.isEmpty, let tape = value.tape else { return false }
        var list: RecordList
        switch value.core {
        case .tree:
            return false
        case .node(let node):
            guard tape.kind(node) == .array else { return validator.isValid(tape, node) }
            var elements: [RecordList.Record] = []
            elements.reserveCapacity(tape.count(node))
            tape.forEachElement(node) { _, element in elements.append(.onTape(name: -1, value: element)) }
            list = RecordList(keyField: "", records: elements)
        case .records(let records):
            list = records
        }
        let keyField = list.keyField
        let records = list.records
        let valid = validity(of: records, on: tape, keyField: keyField)
        let rejected = try rejectedElements(
            count: records.count, context: &context, isValid: { valid[$0] },
            element: { list.materialize(records[$0], tape) })
        if !rejected.isEmpty {
            value.core = .tree(.null)
            ElementFilter.remove(rejected, from: &list.records)
        }
        value.core = .records(list)
        return true
    }

    /// Whether each record is valid, checked in the order the records lie on the tape: after
    /// `keyed-to-array` with `order: key` the list order jumps around a large document, and
    /// checking in that order makes every record a cache miss.
    private func validity(of records: [RecordList.Record], on tape: JSONTape, keyField: String) -> [Bool] {
        @inline(__always) func node(_ record: RecordList.Record) -> Int {
            if case .onTape(_, let value) = record { return value }
            return -1
        }
        var order = Array(records.indices)
        if records.count >= 64, !records.indices.dropFirst().allSatisfy({ node(records[$0 - 1]) <= node(records[$0]) })
        {
            // Sorted as plain integers, node above index (so ties keep list order), rather than
            // through a closure that reads each record's node again at every comparison.
            var keys = records.indices.map { UInt64(node(records[$0]) + 1) << 32 | UInt64($0) }
            keys.sort()
            order = keys.map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
        }
        var valid = [Bool](repeating: true, count: records.count)
        for i in order {
            switch records[i] {
            case .tree(let record): valid[i] = validator.isValid(record)
            case .onTape(let name, let record):
                valid[i] = validator.isValid(
                    tape, record, prepending: name < 0 ? nil : PrependedMember(name: keyField, valueNode: name))
            }
        }
        return valid
    }
}

extension ValidateOperation {
    /// On an array, each element is checked, and dropped, alone; a `fail` throws, which stops the run.
    package var isElementLocal: Bool { true }
}
