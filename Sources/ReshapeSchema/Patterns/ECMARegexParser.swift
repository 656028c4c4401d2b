/// Reads an ECMA-262 pattern (as JSON Schema means it: the `u` flag, no other flags) into
/// tokens, for the matchers that do not need Swift `Regex`: the direct matchers and the PCRE2
/// translation. Deliberately conservative: it understands a subset whose meaning it is sure
/// of and returns nil for anything else (backreferences, lookbehind, `\p{...}`, `\k<...>`,
/// syntax ECMA rejects or other dialects add), which then goes to Swift `Regex`.
enum ECMARegexParser {
    enum Group: Equatable {
        case capture, nonCapture, lookahead, negativeLookahead
    }

    enum Token: Equatable {
        /// One code point, from the pattern's text or an escape.
        case char(UInt32)
        /// A class, a class escape (`\d`, `\S`...) or `.`, resolved to its code points.
        case set(CodePointSet)
        case start, end
        case wordBoundary, notWordBoundary
        /// Named groups are plain capturing groups here: without backreferences (which are
        /// not in the subset) a name changes nothing about what matches.
        case open(Group)
        case close
        case or
        /// `*` `+` `?` `{n}` `{n,}` `{n,m}`, and whether a `?` made it lazy.
        case quantifier(min: Int, max: Int?, lazy: Bool)
    }

    static func tokens(_ source: String) -> [Token]? {
        var reader = Reader(source.unicodeScalars.map(\.value))
        return reader.run()
    }

    /// Counts above this go to Swift `Regex` (PCRE2's limit is 65,535).
    static let maximumCount = 1000

    private struct Reader {
        let text: [UInt32]
        var i = 0
        var tokens: [Token] = []
        var groups: [Group] = []
        /// Whether the last token may take a quantifier: ECMA (with `u`) allows one after an
        /// atom only, never after an assertion, a lookahead or another quantifier.
        var quantifiable = false

        init(_ text: [UInt32]) { self.text = text }

        var peek: UInt32? { i < text.count ? text[i] : nil }

        mutating func emit(_ token: Token, quantifiable: Bool) {
            tokens.append(token)
            self.quantifiable = quantifiable
        }

        mutating func run() -> [Token]? {
            while i < text.count {
                let c = text[i]
                i += 1
                switch c {
                case ascii("\\"):
                    guard let atom = escape(inClass: false) else { return nil }
                    switch atom {
                    case .char(let v): emit(.char(v), quantifiable: true)
                    case .set(let set): emit(.set(set), quantifiable: true)
                    case .boundary(let on): emit(on ? .wordBoundary : .notWordBoundary, quantifiable: false)
                    }
                case ascii("["):
                    guard let set = characterClass() else { return nil }
                    emit(.set(set), quantifiable: true)
                case ascii("("):
                    guard let group = groupOpening() else { return nil }
                    groups.append(group)
                    emit(.open(group), quantifiable: false)
                case ascii(")"):
                    guard let group = groups.popLast() else { return nil }
                    emit(.close, quantifiable: group == .capture || group == .nonCapture)
                case ascii("|"): emit(.or, quantifiable: false)
                case ascii("^"): emit(.start, quantifiable: false)
                case ascii("$"): emit(.end, quantifiable: false)
                case ascii("."): emit(.set(.dot), quantifiable: true)
                case ascii("*"), ascii("+"), ascii("?"):
                    guard quantifiable else { return nil }
                    let (min, max): (Int, Int?) = c == ascii("*") ? (0, nil) : (c == ascii("+") ? (1, nil) : (0, 1))
                    quantifier(min, max)
                case ascii("{"):
                    guard quantifiable, let (min, max) = braces() else { return nil }
                    quantifier(min, max)
                case ascii("]"), ascii("}"):
                    return nil
                default:
                    emit(.char(c), quantifiable: true)
                }
            }
            return groups.isEmpty ? tokens : nil
        }

        mutating func quantifier(_ min: Int, _ max: Int?) {
            var lazy = false
            if peek == ascii("?") {
                lazy = true
                i += 1
            }
            emit(.quantifier(min: min, max: max, lazy: lazy), quantifiable: false)
        }

        /// After `{`: `n}`, `n,}` or `n,m}` with n <= m; nil for anything else (ECMA with `u`
        /// rejects a `{` that does not start a quantifier).
        mutating func braces() -> (Int, Int?)? {
            guard let min = number() else { return nil }
            var max: Int? = min
            if peek == ascii(",") {
                i += 1
                max = peek == ascii("}") ? nil : number()
                if max == nil && peek != ascii("}") { return nil }
            }
            guard peek == ascii("}") else { return nil }
            i += 1
            if let max, max < min { return nil }
            return (min, max)
        }

        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while let c = peek, c >= ascii("0"), c <= ascii("9") {
                value = value * 10 + Int(c - ascii("0"))
                digits += 1
                i += 1
                if value > ECMARegexParser.maximumCount { return nil }
            }
            return digits > 0 ? value : nil
        }

        /// After `(`.
        mutating func groupOpening() -> Group? {
            guard peek == ascii("?") else { return .capture }
            i += 1
            guard let c = peek else { return nil }
            i += 1
            switch c {
            case ascii(":"): return .nonCapture
            case ascii("="): return .lookahead
            case ascii("!"): return .negativeLookahead
            case ascii("<"):
                // A group name; `(?<=` and `(?<!` (lookbehind) are not in the subset.
                var length = 0
                while let c = peek, c != ascii(">") {
                    let letter =
                        (c | 0x20) >= ascii("a") && (c | 0x20) <= ascii("z") || c == ascii("_") || c == ascii("$")
                    let digit = c >= ascii("0") && c <= ascii("9")
                    guard letter || (digit && length > 0) else { return nil }
                    length += 1
                    i += 1
                }
                guard length > 0, peek == ascii(">") else { return nil }
                i += 1
                return .capture
            default:
                return nil
            }
        }

        enum Atom {
            case char(UInt32)
            case set(CodePointSet)
            case boundary(Bool)
        }

        /// After `\`.
        mutating func escape(inClass: Bool) -> Atom? {
            guard let c = peek else { return nil }
            i += 1
            switch c {
            case ascii("d"): return .set(.digit)
            case ascii("D"): return .set(CodePointSet.digit.inverted)
            case ascii("w"): return .set(.word)
            case ascii("W"): return .set(CodePointSet.word.inverted)
            case ascii("s"): return .set(.space)
            case ascii("S"): return .set(CodePointSet.space.inverted)
            case ascii("b"): return inClass ? .char(0x08) : .boundary(true)
            case ascii("B"): return inClass ? nil : .boundary(false)
            case ascii("t"): return .char(0x09)
            case ascii("n"): return .char(0x0A)
            case ascii("v"): return .char(0x0B)
            case ascii("f"): return .char(0x0C)
            case ascii("r"): return .char(0x0D)
            case ascii("0"):
                // \0 is NUL only when no digit follows (with `u`, \01 is an error).
                if let d = peek, d >= ascii("0"), d <= ascii("9") { return nil }
                return .char(0)
            case ascii("c"):
                guard let letter = peek, (letter | 0x20) >= ascii("a"), (letter | 0x20) <= ascii("z") else {
                    return nil
                }
                i += 1
                return .char(letter & 0x1F)
            case ascii("x"):
                guard let value = hex(digits: 2) else { return nil }
                return .char(value)
            case ascii("u"):
                return unicodeEscape().map { .char($0) }
            case ascii("-"):
                return inClass ? .char(c) : nil
            case ascii("^"), ascii("$"), ascii("\\"), ascii("."), ascii("*"), ascii("+"), ascii("?"), ascii("("),
                ascii(")"), ascii("["), ascii("]"), ascii("{"), ascii("}"), ascii("|"), ascii("/"):
                return .char(c)
            default:
                // Backreferences, \k<name>, \p{...}, and identity escapes ECMA (with `u`) rejects.
                return nil
            }
        }

        /// After `\u`: `HHHH` (a surrogate pair as two such escapes makes one code point) or
        /// `{H...}`. Lone surrogates are not in the subset: no string holds one.
        mutating func unicodeEscape() -> UInt32? {
            if peek == ascii("{") {
                i += 1
                var value: UInt32 = 0
                var digits = 0
                while let c = peek, c != ascii("}") {
                    guard let d = hexValue(c) else { return nil }
                    value = value << 4 | d
                    digits += 1
                    i += 1
                    if value > CodePointSet.maximum { return nil }
                }
                guard digits > 0, peek == ascii("}") else { return nil }
                i += 1
                return isSurrogate(value) ? nil : value
            }
            guard let first = hex(digits: 4) else { return nil }
            if (0xD800...0xDBFF).contains(first), i + 1 < text.count, text[i] == ascii("\\"), text[i + 1] == ascii("u")
            {
                let save = i
                i += 2
                if let second = hex(digits: 4), (0xDC00...0xDFFF).contains(second) {
                    return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                }
                i = save
            }
            return isSurrogate(first) ? nil : first
        }

        func isSurrogate(_ value: UInt32) -> Bool { (0xD800...0xDFFF).contains(value) }

        mutating func hex(digits: Int) -> UInt32? {
            guard i + digits <= text.count else { return nil }
            var value: UInt32 = 0
            for k in 0..<digits {
                guard let d = hexValue(text[i + k]) else { return nil }
                value = value << 4 | d
            }
            i += digits
            return value
        }

        func hexValue(_ c: UInt32) -> UInt32? {
            switch c {
            case ascii("0")...ascii("9"): return c - ascii("0")
            case ascii("a")...ascii("f"): return c - ascii("a") + 10
            case ascii("A")...ascii("F"): return c - ascii("A") + 10
            default: return nil
            }
        }

        /// After `[`: the class's code points (`[]` is empty, `[^]` everything).
        mutating func characterClass() -> CodePointSet? {
            var negated = false
            if peek == ascii("^") {
                negated = true
                i += 1
            }
            var set = CodePointSet()
            while true {
                guard let c = peek else { return nil }
                if c == ascii("]") {
                    i += 1
                    break
                }
                guard let first = classAtom() else { return nil }
                if peek == ascii("-"), i + 1 < text.count, text[i + 1] != ascii("]") {
                    i += 1
                    // With `u`, both ends of a range must be single characters, in order.
                    guard case .char(let low) = first, let second = classAtom(), case .char(let high) = second,
                        low <= high
                    else { return nil }
                    set.insert(low...high)
                } else {
                    switch first {
                    case .char(let v): set.insert(v...v)
                    case .set(let s): set.formUnion(s)
                    case .boundary: return nil
                    }
                }
            }
            return negated ? set.inverted : set
        }

        mutating func classAtom() -> Atom? {
            guard let c = peek else { return nil }
            i += 1
            return c == ascii("\\") ? escape(inClass: true) : .char(c)
        }
    }
}

@inline(__always) private func ascii(_ c: Unicode.Scalar) -> UInt32 { c.value }
