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
    let tier: Tier

    // One matcher per tier, only the chosen tier's set (the Swift `Regex` also for PCRE2, which
    // falls back to it). Separate references rather than an enum with payloads: matching then
    // reads a field instead of decoding and retaining an enum payload.
    private let literals: LiteralAlternatives?
    private let classes: ClassSequence?
    private let pcre2: PCRE2Pattern?
    private let swift: Regex<AnyRegexOutput>?

    /// The PCRE2 pattern, for the `pcre2` tier (for tests and diagnostics).
    var pcre2Pattern: String? { pcre2?.pattern }

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
        var literals: LiteralAlternatives?
        var classes: ClassSequence?
        var pcre2: PCRE2Pattern?
        if let tokens, tiers.contains(.direct), let direct = DirectPatternMatcher.make(tokens) {
            switch direct {
            case .literals(let matcher): literals = matcher
            case .classes(let matcher): classes = matcher
            }
            tier = .direct
        } else if let tokens, tiers.contains(.pcre2),
            let compiled = try? PCRE2Pattern(
                (pcre2MatchLimit.map { "(*LIMIT_MATCH=\($0))" } ?? "") + ECMARegexDialect.pcre2(tokens))
        {
            pcre2 = compiled
            tier = .pcre2
        } else {
            tier = .swift
        }
        self.literals = literals
        self.classes = classes
        self.pcre2 = pcre2
        self.swift = tier == .direct ? nil : swift
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
        if let literals { return literals.matches(utf8) }
        if let classes { return classes.matches(utf8) }
        if let pcre2, let answer = pcre2.matches(utf8: utf8) { return answer }
        return Self.matches(swift!, String(decoding: utf8, as: UTF8.self))
    }

    func matches(_ text: String) -> Bool {
        if tier == .swift { return Self.matches(swift!, text) }
        if let answer = text.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) { return answer }
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    private static func matches(_ regex: Regex<AnyRegexOutput>, _ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
