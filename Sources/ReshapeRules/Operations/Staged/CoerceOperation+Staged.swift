import ReshapeJSON

extension CoerceOperation: StagedOperation {
    /// Most records already have the right types; those stay on the tape. A record with a
    /// field to convert (or that cannot convert) is built and coerced as the tree path does.
    func applyStaged(to value: inout StagedValue, context: inout TransformContext) throws(PipelineError) -> Bool {
        guard value.envelopes.isEmpty, let tape = value.tape, case .records(var list) = value.core else { return false }
        var rejected: [Int] = []
        for i in list.records.indices {
            if case .onTape(let name, let record) = list.records[i], tape.kind(record) == .object,
               !fields.indices.contains(where: { needsWork(tape, record, fieldNames[$0], fields[$0].target, keyName: name, keyField: list.keyField) }) {
                continue
            }
            var element = list.materialize(list.records[i], tape)
            list.records[i] = .tree(.null)
            guard case .object(var record) = element else {
                throw PipelineError(code: "not-an-object", message: "coerce expects records, found \(element.kindName)",
                                    pointer: JSONPointer.appending(index: i, to: ""))
            }
            element = .null
            if let failure = coerce(&record),
               try reject(failure, elementPointer: JSONPointer.appending(index: i, to: ""), context: &context) {
                rejected.append(i)
            }
            list.records[i] = .tree(.object(record))
        }
        value.core = .tree(.null)
        ElementFilter.remove(rejected, from: &list.records)
        value.core = .records(list)
        return true
    }

    /// True unless the field is missing, null, or already exactly what conversion would give.
    private func needsWork(_ tape: JSONTape, _ record: Int, _ field: [UInt8], _ target: Target,
                           keyName: Int, keyField: String) -> Bool {
        if keyName >= 0 && field.elementsEqual(keyField.utf8) {
            return target != .string  // the added key is a string
        }
        guard let member = field.withUnsafeBufferPointer({ tape.member(record, named: $0) }) else { return false }
        switch (tape.kind(member), target) {
        case (.null, _), (.number, .number), (.true, .boolean), (.false, .boolean), (.string, .string):
            return false
        case (.number, .integer):
            return !CoerceOperation.isPlainInteger(tape.bytes[tape.textRange(member)])
        default:
            return true
        }
    }

    /// Integer text that `integer` conversion leaves as it is: no fraction, exponent or `-0`,
    /// and small enough to be exact.
    static func isPlainInteger(_ text: ArraySlice<UInt8>) -> Bool {
        let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        return !(text.first == UInt8(ascii: "-") && digits == [UInt8(ascii: "0")])
    }
}
