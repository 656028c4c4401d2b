import ReshapeJSON

/// `properties` with `required` and/or `additionalProperties` of the same schema, in one pass
/// over a tape object: each member name is looked up once, in the properties' table. A hit
/// runs that property's schema and marks it seen; a miss goes to `additionalProperties` unless
/// one of its `patternProperties` patterns takes the name; `required` is then which properties
/// the pass saw, so names are not scanned a second time. Used when every required name is one
/// of (at most 64) properties and `additionalProperties` excludes exactly those properties
/// (`init` returns nil otherwise, and the schema keeps its separate keywords). Tape only
/// (`SchemaNode.tapeKeywords`): quiet mode needs only the conjunction, so the order of the
/// fused checks does not matter; the tree path keeps the keywords, and their messages.
final class RequiredPropertiesKeyword: KeywordCheck, @unchecked Sendable {
    let properties: PropertiesKeyword
    let required: RequiredKeyword?
    let additional: AdditionalPropertiesKeyword?
    /// Bit `i` for each required property `i`.
    let mask: UInt64
    /// `additional` without reference counting for each object checked (`additional` keeps it).
    private let unretainedAdditional: Unmanaged<AdditionalPropertiesKeyword>?

    init?(_ properties: PropertiesKeyword, _ required: RequiredKeyword?, _ additional: AdditionalPropertiesKeyword?) {
        guard properties.names.count <= 64 else { return nil }
        var mask: UInt64 = 0
        var fusedRequired: RequiredKeyword?
        if let required {
            fusedRequired = required
            for name in required.names {
                // By code points, as the tape compares names.
                guard let i = properties.names.firstIndex(where: { $0.utf8.elementsEqual(name.utf8) }) else {
                    fusedRequired = nil
                    mask = 0
                    break
                }
                mask |= 1 << UInt64(i)
            }
        }
        // `additionalProperties` was compiled from the same schema's `properties`; fused only
        // when its names are those, byte for byte (a `Set<String>` merges canonically
        // equivalent names, which the tape tells apart).
        var fusedAdditional: AdditionalPropertiesKeyword?
        if let additional, additional.covers(properties.names) { fusedAdditional = additional }
        guard fusedRequired != nil || fusedAdditional != nil else { return nil }
        self.properties = properties
        self.required = fusedRequired
        self.additional = fusedAdditional
        self.mask = mask
        unretainedAdditional = fusedAdditional.map { Unmanaged.passUnretained($0) }
        super.init((fusedRequired ?? properties).site)
    }

    /// The keywords this one stands for on the tape.
    var fused: [KeywordCheck] { [properties] + [required, additional].compactMap { $0 } }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        var valid = true
        for keyword in fused where !keyword.check(&e, instance, path, &annotations, collect: collect) {
            valid = false
            if e.stopsAtFirstFailure { return false }
        }
        return valid
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        var seen: UInt64 = 0
        return properties.check(tape: &e, instance, seen: &seen, additional: unretainedAdditional)
            && seen & mask == mask
    }
}
