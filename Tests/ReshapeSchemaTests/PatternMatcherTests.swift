import ReshapeJSON
import ReshapeRegex
import ReshapeTestSupport
import XCTest

@testable import ReshapeSchema

/// `CompiledPattern` picks the cheapest exact matcher (direct, PCRE2, Swift `Regex`); every
/// tier must answer as Swift `Regex` (through `ECMARegexDialect`) does.
final class PatternMatcherTests: XCTestCase {
    typealias Tier = CompiledPattern.Tier

    func testTierChoice() throws {
        let expected: [(String, Tier)] = [
            ("@", .direct), ("foo", .direct), ("^foo", .direct), ("bar$", .direct), ("^abc$", .direct),
            (#"\.json$"#, .direct), ("é", .direct), ("東京", .direct), ("", .direct), ("^$", .direct),
            ("^(red|green|blue)$", .direct), ("^(?:a|b)$", .direct), ("^a$|^b$", .direct), ("foo|bar", .direct),
            ("^[a-z0-9_-]+$", .direct), ("^[^@ ]+@[^@ ]+$", .direct), ("^https?://", .direct),
            ("^-?[0-9]+$", .direct), ("^[A-Z]{2}$", .direct), (#"^\S+$"#, .direct), ("^.{1,3}$", .direct),
            (#"^\d+$"#, .direct), (#"^[\w.+-]+@[\w-]+\.[\w.-]+$"#, .direct), ("^🐲*$", .direct),
            ("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", .direct),
            (#"^\u00e9\x41\cJ$"#, .direct),
            (#"^\d{5}(-\d{4})?$"#, .pcre2), (#"^(?=.*\d).{8,}$"#, .pcre2), (#"\bfoo\b"#, .pcre2),
            ("^(a|b)*$", .pcre2), (#"^(?<year>\d{4})-(?<month>\d{2})$"#, .pcre2), ("(foo|bar)+baz", .pcre2),
            ("a{64}", .pcre2), ("^(?!admin$)[a-z]+$", .pcre2),
            // Direct, but its automaton would need 2^10 states: PCRE2 instead.
            ("a.{10}b", .pcre2),
            (#"\p{Letter}cole"#, .swift), (#"^\p{digit}+$"#, .swift), (#"(a)\1"#, .swift), ("(?<n>a)\\k<n>", .swift),
            ("a{,3}", .swift), ("a]", .swift), ("a{1001}", .swift),
        ]
        for (source, tier) in expected {
            let pattern = try CompiledPattern(source)
            XCTAssertEqual(pattern.tier, tier, "/\(source)/")
        }
    }

    /// Patterns Swift `Regex` refuses stay schema errors, whatever tier would have taken them.
    func testInvalidPatternsStillThrow() {
        for source in ["(?<=a)b", "^(abc]", #"\a"#, "(?P<n>x)", "(?i)a", "(", "[z-a]", "a{2,1}"] {
            XCTAssertThrowsError(try CompiledPattern(source), "/\(source)/")
            XCTAssertFalse(CompiledPattern.isValid(source), "/\(source)/")
        }
    }

    /// ECMA meanings that Swift `Regex` would get wrong without `ECMARegexDialect`, checked
    /// against the expected answer in every tier.
    func testECMAMeaningInEveryTier() throws {
        let cases: [(String, String, Bool)] = [
            (#"^\s$"#, "\u{FEFF}", true), (#"^\s$"#, "\u{A0}", true), (#"^\s$"#, "\u{2028}", true),
            (#"^\s$"#, "\u{85}", false), (#"^\s$"#, "\u{180E}", false), (#"^\S$"#, "\u{85}", true),
            ("^.$", "\u{85}", true), ("^.$", "\u{0B}", true), ("^.$", "\u{0C}", true), ("^.$", "\n", false),
            ("^.$", "\r", false), ("^.$", "\u{2029}", false), ("^.$", "🐲", true),
            (#"^\d$"#, "\u{7C0}", false), (#"^\w$"#, "é", false), (#"^\W\W$"#, "0🐲", false),
            (#"^\W+$"#, "5\u{3000}", false),
            (#"^[\t\v]$"#, "\u{2029}", false), (#"^\v$"#, "\u{B}", true),
            ("^abc$", "abc\n", false), ("^[a&&b]$", "&", true), ("^[a~~b]$", "~", true),
            ("^[^]$", "\n", true), ("^[]", "", false), (#"^[\S]$"#, " ", false), (#"^[\S]$"#, "x", true),
        ]
        for (source, text, expected) in cases {
            for tier in Tier.allCases {
                let pattern = try CompiledPattern(source, tiers: [tier])
                XCTAssertEqual(pattern.matches(text), expected, "/\(source)/ (\(pattern.tier)) on \(Self.show(text))")
            }
        }
    }

    /// `\b` is ASCII in ECMA (and in PCRE2 without UCP). Swift `Regex` has no such mode (its
    /// default boundaries are Unicode's, its simple ones take digits for non-word
    /// characters), so only PCRE2 is held to it; such patterns never reach Swift unless they
    /// also need it for something else.
    func testWordBoundariesInPCRE2() throws {
        let cases: [(String, String, Bool)] = [
            (#"\bé"#, "é", false), (#"a\b"#, "aé", true), (#"\bfoo"#, "5foo", false), (#"\bfoo"#, "éfoo", true),
            (#"foo\b"#, "foo_", false), (#"\B@"#, "5@", false), (#"\B@"#, " @", true), (#"^\b$"#, "", false),
        ]
        for (source, text, expected) in cases {
            let pattern = try CompiledPattern(source)
            XCTAssertEqual(pattern.tier, .pcre2, "/\(source)/")
            XCTAssertEqual(pattern.matches(text), expected, "/\(source)/ on \(Self.show(text))")
        }
    }

    /// When PCRE2 stops at a limit, the Swift `Regex` answers instead.
    func testPCRE2LimitFallsBackToSwift() throws {
        for (source, text, expected) in [("^(?:a|ab)*c$", "ababc", true), ("^(?:a|b)*$", "ababc", false)] {
            let limited = try CompiledPattern(source, tiers: [.pcre2], pcre2MatchLimit: 1)
            XCTAssertEqual(limited.tier, .pcre2)
            let engine = try PCRE2Pattern(try XCTUnwrap(limited.pcre2Pattern))
            var bytes = text
            XCTAssertNil(bytes.withUTF8 { engine.matches(utf8: $0) }, "/\(source)/ must hit the limit on \(text)")
            XCTAssertEqual(limited.matches(text), expected, "/\(source)/ on \(text)")
            XCTAssertEqual(bytes.withUTF8 { limited.matches(utf8: $0) }, expected, "/\(source)/ on \(text)")
        }
    }

    /// Patterns are shared by every worker thread: PCRE2's match data is per thread, the
    /// direct matchers are immutable.
    func testMatchingFromManyThreads() throws {
        let patterns = try [#"^\d{5}(-\d{4})?$"#, "^[^@ ]+@[^@ ]+$", "@"].map { try CompiledPattern($0) }
        XCTAssertEqual(patterns.map(\.tier), [.pcre2, .direct, .direct])
        let texts = ["12345", "12345-6789", "1234", "a@b", "a b@c", "@", "", "12345-678"]
        let expected = texts.map { text in patterns.map { $0.matches(text) } }
        XCTAssertEqual(expected[1], [true, false, false])
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<2000 {
                let k = (round + worker) % texts.count
                if texts[k].withUTF8Copy({ bytes in patterns.map { $0.matches(utf8: bytes) } }) != expected[k] {
                    failures.add(k)
                }
            }
        }
        XCTAssertEqual(failures.count, 0)
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add(_: Int) {
            lock.lock()
            value += 1
            lock.unlock()
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    /// A pattern on the tape sees escaped strings decoded, for values and member names.
    func testPatternsOnTapeSeeDecodedStrings() throws {
        let schema = try JSON(
            parsing: #"""
                {"type": "object", "properties": {"v": {"pattern": "^caf\u00e9$"}},
                 "patternProperties": {"é$": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
                """#)
        let validator = try Validator(schema: schema)
        let cases: [(String, Bool)] = [
            (#"{"v": "caf\u00e9"}"#, true), (#"{"v": "café"}"#, true), (#"{"v": "cafe"}"#, false),
            (#"{"caf\u00e9": 1}"#, true), (#"{"caf\u00e9": "x"}"#, false), (#"{"cafe": "x"}"#, true),
            (#"{"cafe": 1}"#, false),
        ]
        for (text, expected) in cases {
            let tape = try JSONTape.parse(Array(text.utf8))
            XCTAssertEqual(validator.isValid(tape, tape.root), expected, text)
            XCTAssertEqual(validator.isValid(try JSON(parsing: text)), expected, text)
        }
    }

    // MARK: Differential: every tier against Swift `Regex`

    static let handPatterns = [
        "@", #"^[^@ ]+@[^@ ]+$"#, "^[a-z0-9-]+$", #"^\d{5}(-\d{4})?$"#, "^(red|green|blue)$", "^-?[0-9]+$",
        "^[A-Z]{2}$", "^https?://", #"\.json$"#, #"^\S+$"#, "^.{1,3}$", "é", "東京",
        "^[a-z0-9_-]+$", "^(?:a|b)$", "^a$|^b$", "foo|bar", "^$", "", #"^\s*$"#, #"\s"#, #"^[\s\S]*$"#,
        "^[^]$", "^[]", "[]", #"^\w+$"#, #"\bfoo\b"#, #"\B@"#, "^[A-Za-z_][-A-Za-z0-9._]*$", "^[^#]*#?$",
        #"^\+?[1-9]\d{1,14}$"#, "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        "^#[0-9a-fA-F]{6}$", #"^\d{4}-\d{2}-\d{2}$"#, #"^[\u0041-\u005A]+$"#, #"^\u00e9"#, #"^\x41"#,
        #"\cJ"#, #"^(?=.*\d)(?=.*[a-z]).{8,}$"#, "^(a|b)*$", #"^(?<year>\d{4})-(?<month>\d{2})$"#,
        #"^[^\s@]+@[^\s@]+\.[^\s@]+$"#, #"^\S+@\S+$"#, #"^[\w.+-]+@[\w-]+\.[\w.-]+$"#, "a{2,}", "^a{0}$",
        "x*", "^[a-z]+?$", "^🐲*$", "^[🐲🐉]$", "^[é-ü]+$", #"[\u2028\u2029]"#, "^.$", #"^\W+$"#,
        #"^\D+$"#, #"^[\d\s]+$"#, #"^[^\d\s]+$"#, #"^[\S]+$"#, "^[a&&b]+$", #"^[\]]$"#, #"a\/b"#,
        #"^\$\d+(\.\d\d)?$"#, "(foo|bar)+baz", "^(?!admin$)[a-z]+$", #"\u{1F432}"#, "^(?:.{2})+$",
        #"^[\t\n\v\f\r ]+$"#, #"\0"#, "^.*$", "^e\u{301}$", "a.c", "^[^a-z]*$", "ab?c+d*e{1,2}f{2,}",
        #"(\d+)\s*(?:kg|g)"#, #"^\d+(?:\.\d+)?$"#, "^(?:[a-z]+-)*[a-z]+$", "^[^.]+\\.[^.]+$", "a.{10}b", "a.{5}b",
        "[ab][^a]?a*b", "^\\S+ \\S+$",
        #"^[^\s]{2,5}\s?\d*$"#, "é+[^é]*ü", "[^🐲]🐲{2}",
    ]

    func testEveryTierAgreesWithSwiftRegex() throws {
        let suite = try XCTUnwrap(ConformanceSuite.locate(), ConformanceSuite.notFound)
        let (suitePatterns, suiteStrings) = Self.suitePatternsAndStrings(suite)
        XCTAssertGreaterThan(suitePatterns.count, 30)
        var sources = suitePatterns
        for p in Self.handPatterns where !sources.contains(p) { sources.append(p) }
        var tally: [Tier: Int] = [:]
        var comparisons = 0
        var failures: [String] = []
        for source in sources {
            guard let swift = try? CompiledPattern(source, tiers: [.swift]) else { continue }
            let reference = Self.boundaryOracle(source) ?? { swift.matches($0) }
            var tiers: [CompiledPattern] = []
            for tier in [Tier.direct, .pcre2] {
                if let p = try? CompiledPattern(source, tiers: [tier]), p.tier == tier { tiers.append(p) }
            }
            tally[try CompiledPattern(source).tier, default: 0] += 1
            for text in suiteStrings + Self.randomStrings(for: source, count: 3000) {
                let expected = reference(text)
                for pattern in tiers {
                    comparisons += 1
                    var bytes = text
                    let onBytes = bytes.withUTF8 { pattern.matches(utf8: $0) }
                    let onString = pattern.matches(text)
                    if onBytes != expected || onString != expected {
                        failures.append(
                            "/\(source)/ \(pattern.tier)\(pattern.pcre2Pattern.map { " /\($0)/" } ?? "") on \(Self.show(text)): \(onBytes), expected \(expected)"
                        )
                    }
                }
            }
        }
        print(
            "patterns: \(sources.count), suite strings: \(suiteStrings.count) (\(tally[.direct] ?? 0) direct, \(tally[.pcre2] ?? 0) PCRE2, \(tally[.swift] ?? 0) Swift); \(comparisons) comparisons against Swift Regex, \(failures.count) differ"
        )
        XCTAssertGreaterThan(comparisons, 100_000)
        for failure in failures.prefix(50) { XCTFail(failure) }
    }

    /// ECMA's answer for the patterns with `\b` or `\B` (see `testWordBoundariesInPCRE2`).
    static func boundaryOracle(_ source: String) -> ((String) -> Bool)? {
        func word(_ scalars: [Unicode.Scalar], _ k: Int) -> Bool {
            guard k >= 0 && k < scalars.count else { return false }
            let c = scalars[k]
            return ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_"
        }
        switch source {
        case #"\bfoo\b"#:
            return { text in
                let scalars = Array(text.unicodeScalars)
                guard scalars.count >= 3 else { return false }
                return (0...(scalars.count - 3)).contains { k in
                    scalars[k] == "f" && scalars[k + 1] == "o" && scalars[k + 2] == "o" && !word(scalars, k - 1)
                        && !word(scalars, k + 3)
                }
            }
        case #"\B@"#:
            // `@` is not a word character, so no boundary before it means none before that either.
            return { text in
                let scalars = Array(text.unicodeScalars)
                return scalars.indices.contains { k in scalars[k] == "@" && !word(scalars, k - 1) }
            }
        default:
            return source.contains(#"\b"#) || source.contains(#"\B"#)
                ? { _ in fatalError("no oracle for /\(source)/") } : nil
        }
    }

    /// Every `pattern` and `patternProperties` key of the suite's schemas, and every string
    /// and member name in the data of the files that use them.
    static func suitePatternsAndStrings(_ suite: ConformanceSuite) -> ([String], [String]) {
        var patterns: [String] = []
        var strings: Set<String> = []
        func collectPatterns(_ value: JSON) -> Bool {
            var found = false
            switch value {
            case .object(let object):
                for member in object.members {
                    if member.key == "pattern", case .string(let s) = member.value {
                        if !patterns.contains(s) { patterns.append(s) }
                        found = true
                    }
                    if member.key == "patternProperties", case .object(let props) = member.value {
                        for p in props.members where !patterns.contains(p.key) { patterns.append(p.key) }
                        found = true
                    }
                    if collectPatterns(member.value) { found = true }
                }
            case .array(let elements):
                for element in elements where collectPatterns(element) { found = true }
            default: break
            }
            return found
        }
        func collectStrings(_ value: JSON) {
            switch value {
            case .string(let s): strings.insert(s)
            case .object(let object):
                for member in object.members {
                    strings.insert(member.key)
                    collectStrings(member.value)
                }
            case .array(let elements): elements.forEach(collectStrings)
            default: break
            }
        }
        let files = suite.jsonFiles(in: "") + suite.jsonFiles(in: "optional") + suite.jsonFiles(in: "optional/format")
        for file in files {
            guard case .array(let groups)? = ConformanceSuite.parse(suite.testsDirectory.appendingPathComponent(file))
            else { continue }
            for case .object(let group) in groups {
                guard let schema = group["schema"], collectPatterns(schema), case .array(let tests)? = group["tests"]
                else { continue }
                for case .object(let test) in tests { test["data"].map(collectStrings) }
            }
        }
        return (patterns, strings.sorted())
    }

    /// Pieces that make patterns match and fail: ASCII, digits, `@`, whitespace ECMA counts and
    /// whitespace it does not, line terminators, non-ASCII letters and digits, astral characters.
    static let pieces: [String] = [
        "a", "b", "c", "e", "f", "o", "x", "z", "A", "Z", "0", "1", "5", "9", "@", ".", " ", "-", "_", "/", ":",
        "#", "+", "$", "\\", "&", "~", "[", "]", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}",
        "\u{1680}", "\u{2000}", "\u{200A}", "\u{200B}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{3000}",
        "\u{FEFF}", "\u{180E}", "é", "e\u{301}", "ü", "É", "東", "京", "🐲", "🐉", "\u{7C0}", "\u{9EA}", "\u{0}",
        "user@example.com", "a b@c", "red", "green", "blue", "foo", "bar", "baz", "http://", "https://", ".json",
        "admin", "kg", "12345", "-6789", "2024-01-31", "#a0B9fF",
    ]

    /// Deterministic strings built from `pieces` and from the pattern's own letters and
    /// non-ASCII characters, mostly short (so anchored patterns match often), a few long.
    static func randomStrings(for source: String, count: Int) -> [String] {
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: source.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        var own: [String] = []
        var word = ""
        for scalar in source.unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(scalar)
                own.append(String(scalar))
            } else if !word.isEmpty {
                own.append(word)
                word = ""
            }
        }
        if !word.isEmpty { own.append(word) }
        var result: [String] = []
        for _ in 0..<count {
            let length = generator.next() % 8 == 0 ? Int(generator.next() % 40) : Int(generator.next() % 8)
            var text = ""
            for _ in 0..<length {
                if !own.isEmpty && generator.next() % 3 == 0 {
                    text += own[Int(generator.next() % UInt64(own.count))]
                } else {
                    text += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
            }
            result.append(text)
        }
        return result
    }

    static func show(_ text: String) -> String {
        "\""
            + text.unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}"
            }.joined() + "\""
    }
}

extension String {
    func withUTF8Copy<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = self
        return copy.withUTF8(body)
    }
}
