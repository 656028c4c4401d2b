import ReshapeRegex

/// A compiled `pattern` / `patternProperties` regex and the source it came from (for
/// messages). ECMA-262 is the dialect JSON Schema names: `\d`, `\w` and `\b` are ASCII,
/// matching is by code point (like the `u` flag), and patterns are unanchored.
///
/// At load time the cheapest exact matcher that can take the pattern is chosen:
/// 1. `direct`: literal text and sequences of single-character classes
///    (`DirectPatternMatcher`), on the bytes, no engine;
/// 2. `pcre2`: PCRE2 (JIT-compiled) on the bytes, for what `ECMARegexParser` reads with
///    certainty, translated so that PCRE2's meaning is ECMA's;
/// 3. `swift`: Swift `Regex` through `ECMARegexDialect`, for the rest (`\p{...}`,
///    backreferences...), and for a string on which PCRE2 stops at a limit.
/// Whether a pattern is valid is decided as before by Swift `Regex`, for every tier.
final class CompiledPattern: @unchecked Sendable {
    enum Tier: Equatable, CaseIterable {
        case direct, pcre2, swift
    }

    let source: String

    private enum Matcher {
        case direct(DirectPatternMatcher)
        /// The Swift `Regex` answers when PCRE2 cannot finish (a match or stack limit).
        case pcre2(PCRE2Pattern, fallback: Regex<AnyRegexOutput>)
        case swift(Regex<AnyRegexOutput>)
    }

    private let matcher: Matcher

    var tier: Tier {
        switch matcher {
        case .direct: return .direct
        case .pcre2: return .pcre2
        case .swift: return .swift
        }
    }

    /// The PCRE2 pattern, for the `pcre2` tier (for tests and diagnostics).
    var pcre2Pattern: String? {
        if case .pcre2(let pattern, _) = matcher { return pattern.pattern }
        return nil
    }

    convenience init(_ source: String) throws {
        try self.init(source, tiers: Tier.allCases)
    }

    /// `tiers`: the tiers that may be chosen, cheapest first; tests use it to run one pattern
    /// through each tier. Swift `Regex` is the last resort whatever `tiers` says.
    /// `pcre2MatchLimit` lowers PCRE2's match limit, for tests of what happens when PCRE2
    /// stops at a limit.
    init(_ source: String, tiers: [Tier], pcre2MatchLimit: Int? = nil) throws {
        self.source = source
        // Parsing the Swift `Regex` keeps the errors what they were; its program is only built
        // if it ever matches.
        let swift = try Self.swiftRegex(source)
        let tokens = ECMARegexParser.tokens(source)
        if let tokens, tiers.contains(.direct), let direct = DirectPatternMatcher.make(tokens) {
            matcher = .direct(direct)
        } else if let tokens, tiers.contains(.pcre2),
                  let pcre2 = try? PCRE2Pattern((pcre2MatchLimit.map { "(*LIMIT_MATCH=\($0))" } ?? "") + ECMARegexDialect.pcre2(tokens)) {
            matcher = .pcre2(pcre2, fallback: swift)
        } else {
            matcher = .swift(swift)
        }
    }

    /// Whether `source` is a pattern `init` accepts (for `format: regex`), without building
    /// any matcher.
    static func isValid(_ source: String) -> Bool {
        (try? swiftRegex(source)) != nil
    }

    private static func swiftRegex(_ source: String) throws -> Regex<AnyRegexOutput> {
        try Regex(ECMARegexDialect.translate(source)).matchingSemantics(.unicodeScalar)
            .asciiOnlyDigits().asciiOnlyWordCharacters()
    }

    /// Whether the pattern matches somewhere in `utf8` (valid UTF-8, as every JSON string is).
    @inline(__always)
    func matches(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        switch matcher {
        case .direct(let direct):
            return direct.matches(utf8: utf8)
        case .pcre2(let pcre2, let fallback):
            if let answer = pcre2.matches(utf8: utf8) { return answer }
            return Self.matches(fallback, String(decoding: utf8, as: UTF8.self))
        case .swift(let regex):
            return Self.matches(regex, String(decoding: utf8, as: UTF8.self))
        }
    }

    func matches(_ text: String) -> Bool {
        if case .swift(let regex) = matcher { return Self.matches(regex, text) }
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    private static func matches(_ regex: Regex<AnyRegexOutput>, _ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
