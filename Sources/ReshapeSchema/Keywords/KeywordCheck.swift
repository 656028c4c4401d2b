import ReshapeJSON

/// Where a keyword sits, for violations.
struct KeywordSite {
    /// Keyword name as written, e.g. "minimum" (the violation's `keyword`).
    let name: String
    /// JSON Pointer (or `uri#pointer`) of the keyword (the violation's `schemaPointer`).
    let location: String
}

/// One compiled keyword. Each keyword is a subclass holding its precomputed operands (nodes
/// resolved, regexes compiled), so checking an instance is one virtual call with nothing copied.
class KeywordCheck: @unchecked Sendable {
    let site: KeywordSite

    init(_ site: KeywordSite) { self.site = site }

    /// True when `instance` satisfies the keyword; keywords for other JSON types pass.
    /// Records what it evaluated into `annotations` when `collect` is true.
    func check(
        _ e: inout Evaluation, _ instance: JSON, _ path: String,
        _ annotations: inout Annotations, collect: Bool
    ) -> Bool {
        fatalError("abstract")
    }

    /// `check` in quiet mode on a tape node. Keywords common in rule files override it to
    /// read the tape; the others get the value materialized (same verdict, slower).
    func check(tape e: inout TapeEvaluation, _ node: Int) -> Bool {
        e.fallback(node) { check(&$0, $1, "", &$2, collect: false) }
    }

    /// Reports a violation of this keyword (only in reporting mode) and returns false.
    @inline(__always)
    final func fail(_ e: inout Evaluation, _ path: String, _ reason: @autoclosure () -> String) -> Bool {
        e.report(path, site, reason())
        return false
    }

    /// A value as compact JSON, shortened for messages.
    static func brief(_ value: JSON) -> String {
        let text = value.serializedString()
        guard text.count > 60 else { return text }
        return String(text.prefix(57)) + "..."
    }
}
