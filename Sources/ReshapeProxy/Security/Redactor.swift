import Glibc
import ReshapeRules

/// Replaces every secret (a value that came from `${VAR}`, or a forwarded client credential)
/// with `[REDACTED]`.
package struct Redactor: Sendable {
    private let secrets: [String]

    package init(secrets: [String]) {
        // A secret also travels percent-encoded (an upstream `query:` value in a URL): both
        // forms are searched for. Longest first, so a secret that contains another is removed whole.
        var forms: Set<String> = []
        for secret in secrets where !secret.isEmpty {
            forms.insert(secret)
            forms.insert(PercentEncoding.encode(secret))
        }
        self.secrets = forms.sorted { $0.count > $1.count || ($0.count == $1.count && $0 < $1) }
    }

    package func redact(_ text: String) -> String {
        var text = text
        for secret in secrets where Self.occurs(secret, in: text) {
            text = text.replacing(secret, with: "[REDACTED]")
        }
        return text
    }

    /// Whether `needle`'s bytes occur in `haystack`: a byte search, where `String.contains`
    /// compares by Characters and cost a third of a small request's instructions, since every
    /// request's log line and fetch URLs are checked for every secret.
    private static func occurs(_ needle: String, in haystack: String) -> Bool {
        var haystack = haystack
        var needle = needle
        return haystack.withUTF8 { text in
            needle.withUTF8 { pattern in
                guard let first = pattern.first else { return true }
                guard pattern.count <= text.count, let base = text.baseAddress, let start = pattern.baseAddress else {
                    return false
                }
                for offset in 0...(text.count - pattern.count)
                where text[offset] == first && memcmp(base + offset, start, pattern.count) == 0 {
                    return true
                }
                return false
            }
        }
    }
}
