/// Which draft 2020-12 vocabularies a schema's metaschema turns on (`$vocabulary`).
/// Core is always on; keywords of a vocabulary that is off are ignored.
struct Vocabularies {
    var applicator: Bool
    var unevaluated: Bool
    var validation: Bool
    /// `format-assertion`: `format` becomes an assertion for schemas under this metaschema.
    var formatAssertion: Bool

    static let all = Vocabularies(applicator: true, unevaluated: true, validation: true, formatAssertion: false)

    init(applicator: Bool, unevaluated: Bool, validation: Bool, formatAssertion: Bool) {
        self.applicator = applicator
        self.unevaluated = unevaluated
        self.validation = validation
        self.formatAssertion = formatAssertion
    }

    init(_ declared: [String]) {
        let prefix = "https://json-schema.org/draft/2020-12/vocab/"
        let names = Set(declared.compactMap { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : nil })
        self.init(
            applicator: names.contains("applicator"), unevaluated: names.contains("unevaluated"),
            validation: names.contains("validation"), formatAssertion: names.contains("format-assertion"))
    }
}
