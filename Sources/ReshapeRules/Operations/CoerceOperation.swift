import ReshapeJSON

/// `coerce: { age: integer, active: boolean, invalid: fail }` — converts fields of a record
/// (or of every record in an array) to `integer`, `number`, `boolean` or `string`:
/// `"42"` → `42`, `"4.5"` → `4.5`, `"true"`/`"false"` → booleans, numbers and booleans →
/// their text. Absent and `null` fields are left alone. A value that cannot convert makes
/// its record invalid, handled by `invalid` (`fail`, the default, throws `coerce-failed`;
/// `drop` removes the record and records it; `keep` leaves it unconverted). `invalid` is
/// an option, not a field, only when its value is `drop`, `fail` or `keep`.
package struct CoerceOperation: TransformOperation {
    package enum Target: String, Sendable, CaseIterable {
        case integer, number, boolean, string
    }

    package let fields: [(name: String, target: Target)]
    package let invalid: InvalidPolicy
    /// The field names as UTF-8, for looking them up on a tape (made once, at load time).
    let fieldNames: [[UInt8]]

    package init(fields: [(name: String, target: Target)], invalid: InvalidPolicy = .fail) {
        self.fields = fields
        self.invalid = invalid
        fieldNames = fields.map { Array($0.name.utf8) }
    }

    static func compile(_ argument: OperationArgument, _: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object()
        var fields: [(name: String, target: Target)] = []
        var invalid = InvalidPolicy.fail
        for member in object.members {
            guard case .string(let text) = member.value else {
                throw argument.error(
                    "the target type must be one of \(Target.allCases.map(\.rawValue).joined(separator: ", ")), found \(member.value.kindName)",
                    at: member.key)
            }
            if member.key == "invalid", let policy = InvalidPolicy(rawValue: text) {
                invalid = policy
                continue
            }
            guard let target = Target(rawValue: text) else {
                throw argument.error(
                    "unknown target type '\(text)' (expected one of: \(Target.allCases.map(\.rawValue).joined(separator: ", ")))",
                    at: member.key)
            }
            fields.append((member.key, target))
        }
        guard !fields.isEmpty else { throw argument.error("expected at least one 'field: type' pair") }
        return CoerceOperation(fields: fields, invalid: invalid)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        if var record = value.takeObject() {
            if let failure = coerce(&record), try reject(failure, elementPointer: "", context: &context) {
                context.removesCurrentValue = true
                return  // value stays null
            }
            value = .object(record)
        } else if var elements = value.takeArray() {
            try ElementFilter.removeRejected(from: &elements) {
                (element: inout JSON, i: Int) throws(PipelineError) -> Bool in
                guard var record = element.takeObject() else {
                    throw PipelineError(
                        code: "not-an-object", message: "coerce expects records, found \(element.kindName)",
                        pointer: JSONPointer.appending(index: i, to: ""))
                }
                defer { element = .object(record) }
                guard let failure = coerce(&record) else { return true }
                return try !reject(failure, elementPointer: JSONPointer.appending(index: i, to: ""), context: &context)
            }
            value = .array(elements)
        } else {
            throw PipelineError(
                code: "not-an-object",
                message: "coerce expects a record or an array of records, found \(value.kindName)",
                pointer: "")
        }
    }

    /// A field that would not convert.
    struct Failure {
        let field: String
        let found: JSON
        let target: Target
        var reason: String {
            let shown: String
            if case .string(let text) = found { shown = "the string \"\(text)\"" } else { shown = found.kindName }
            return "cannot convert \(shown) to \(target.rawValue)"
        }
    }

    /// Converts every field it can; on the first failure stops and reports it, leaving the
    /// record as it was up to that field (the caller drops, keeps or fails it).
    func coerce(_ record: inout JSONObject) -> Failure? {
        for (name, target) in fields {
            guard let i = record.index(forKey: name) else { continue }
            if case .null = record.members[i].value { continue }
            guard let converted = CoerceOperation.convert(record.members[i].value, to: target) else {
                return Failure(field: name, found: record.members[i].value, target: target)
            }
            record.members[i].value = converted
        }
        return nil
    }

    /// Applies the policy; true when the record must be removed.
    func reject(_ failure: Failure, elementPointer: String, context: inout TransformContext) throws(PipelineError)
        -> Bool
    {
        let fieldPointer = JSONPointer.appending(key: failure.field, to: elementPointer)
        switch invalid {
        case .fail:
            throw PipelineError(code: "coerce-failed", message: failure.reason, pointer: fieldPointer)
        case .keep:
            return false
        case .drop:
            context.recordDrop(
                pointer: elementPointer, type: "coerce",
                reason: "\(JSONPointer.appending(key: failure.field, to: "")): \(failure.reason)")
            return true
        }
    }

    /// The converted value, or nil when `value` has no meaning as `target`.
    static func convert(_ value: JSON, to target: Target) -> JSON? {
        if isAlready(target, value) { return value }
        switch (target, value) {
        case (.integer, .number(let number)):
            return integer(number)
        case (.integer, .string(let text)):
            return JSONNumber(text).flatMap(integer)
        case (.number, .string(let text)):
            return JSONNumber(text).map(JSON.number)
        case (.boolean, .string(let text)):
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return nil
            }
        case (.string, .number(let number)):
            return .string(number.text)
        case (.string, .bool(let flag)):
            return .string(flag ? "true" : "false")
        default:
            return nil
        }
    }

    /// True when `convert` gives `value` back as it is.
    static func isAlready(_ target: Target, _ value: JSON) -> Bool {
        switch value {
        case .number(let number): isAlready(target, .number, text: number.text.utf8)
        case .string: isAlready(target, .string, text: EmptyCollection())
        case .bool(let flag): isAlready(target, flag ? .true : .false, text: EmptyCollection())
        case .null, .array, .object: false
        }
    }

    /// True when converting a value of `kind` to `target` leaves it exactly as it is (same
    /// bytes out): a number, boolean or string already, an integer only when written plainly.
    /// Both paths read it: `convert` returns such values untouched, and the tape path leaves
    /// records whose fields all are so on the tape. `text` is read for numbers only.
    static func isAlready(
        _ target: Target, _ kind: JSONTape.Kind,
        text: @autoclosure () -> some Collection<UInt8>
    ) -> Bool {
        switch (kind, target) {
        case (.number, .number), (.true, .boolean), (.false, .boolean), (.string, .string): true
        case (.number, .integer): isPlainInteger(text())
        default: false
        }
    }

    /// Whole numbers only; written without a fraction when they fit 64 bits (`"4.0"` → `4`).
    private static func integer(_ number: JSONNumber) -> JSON? {
        guard number.isInteger else { return nil }
        if let exact = number.int64Value { return .number(JSONNumber(uncheckedText: String(exact))) }
        return .number(number)
    }
}

// MARK: - On the tape

extension CoerceOperation {
    /// Most records already have the right types; those stay on the tape. A record with a
    /// field to convert (or that cannot convert) is built and coerced as the tree path does.
    package func applyOnTape(to value: inout TapeValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, let tape = value.tape, case .records(var list) = value.core else { return false }
        var rejected: [Int] = []
        for i in list.records.indices {
            if case .onTape(let name, let record) = list.records[i], tape.kind(record) == .object,
                !fields.indices.contains(where: {
                    needsWork(tape, record, fieldNames[$0], fields[$0].target, keyName: name, keyField: list.keyField)
                })
            {
                continue
            }
            var element = list.materialize(list.records[i], tape)
            list.records[i] = .tree(.null)
            guard case .object(var record) = element else {
                throw PipelineError(
                    code: "not-an-object", message: "coerce expects records, found \(element.kindName)",
                    pointer: JSONPointer.appending(index: i, to: ""))
            }
            element = .null
            if let failure = coerce(&record),
                try reject(failure, elementPointer: JSONPointer.appending(index: i, to: ""), context: &context)
            {
                rejected.append(i)
            }
            list.records[i] = .tree(.object(record))
        }
        value.core = .tree(.null)
        ElementFilter.remove(rejected, from: &list.records)
        value.core = .records(list)
        return true
    }

    /// True unless the field is missing, null, or already what conversion would give.
    private func needsWork(
        _ tape: JSONTape, _ record: Int, _ field: [UInt8], _ target: Target,
        keyName: Int, keyField: String
    ) -> Bool {
        if keyName >= 0 && field.elementsEqual(keyField.utf8) {
            return !CoerceOperation.isAlready(target, .string, text: EmptyCollection())  // the added key is a string
        }
        guard let member = field.withUnsafeBufferPointer({ tape.member(record, named: $0) }) else { return false }
        let kind = tape.kind(member)
        return kind != .null && !CoerceOperation.isAlready(target, kind, text: tape.bytes[tape.textRange(member)])
    }

    /// Integer text that `integer` conversion leaves as it is: no fraction, exponent or `-0`,
    /// and small enough to be exact.
    static func isPlainInteger(_ text: some Collection<UInt8>) -> Bool {
        let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.count <= 18,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return false }
        return !(text.first == UInt8(ascii: "-") && digits.elementsEqual([UInt8(ascii: "0")]))
    }
}

extension CoerceOperation {
    /// On an array, each record converts, or is dropped, alone; a `fail` throws, which stops the run.
    package var isElementLocal: Bool { true }
}
