/// Checks one `format` value; only consulted when format assertion is on.
typealias FormatCheck = @Sendable (String) -> Bool

enum Formats {
    /// The checker for a format name, or nil for formats we do not know (those always pass).
    static func check(named name: String) -> FormatCheck? {
        nil
    }
}
