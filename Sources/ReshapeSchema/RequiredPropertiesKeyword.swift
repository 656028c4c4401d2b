import ReshapeJSON

/// `properties` and `required` of one schema in one pass over a tape object, when every
/// required name is one of (at most 64) properties: `required` is then which properties the
/// pass saw, and names are not scanned a second time. Tape only (`SchemaNode.tapeKeywords`);
/// the tree path keeps the two keywords.
final class RequiredPropertiesKeyword: KeywordCheck, @unchecked Sendable {
    let properties: PropertiesKeyword
    let required: RequiredKeyword
    /// Bit `i` for each required property `i`.
    let mask: UInt64

    init?(_ properties: PropertiesKeyword, _ required: RequiredKeyword) {
        guard properties.names.count <= 64 else { return nil }
        var mask: UInt64 = 0
        for name in required.names {
            // By code points, as the tape compares names.
            guard let i = properties.names.firstIndex(where: { $0.utf8.elementsEqual(name.utf8) }) else { return nil }
            mask |= 1 << UInt64(i)
        }
        self.properties = properties
        self.required = required
        self.mask = mask
        super.init(required.site)
    }

    override func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        properties.check(&e, instance, path, &annotations, collect: collect)
            && required.check(&e, instance, path, &annotations, collect: collect)
    }

    override func check(tape e: inout TapeEvaluation, _ instance: Int) -> Bool {
        guard e.view.kind(instance) == .object else { return true }
        var seen: UInt64 = 0
        return properties.check(tape: &e, instance, seen: &seen) && seen & mask == mask
    }
}
