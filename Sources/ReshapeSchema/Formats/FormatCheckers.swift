/// The `format` checkers, for tools that propose a format only where every sample value
/// has it (`reshape infer`): the same checks as validation with format assertion on.
public enum FormatCheckers {
    /// Whether `text` is a valid `format` value; nil for a format name not known.
    public static func matches(_ text: String, format: String) -> Bool? {
        Formats.check(named: format).map { $0(text) }
    }
}
