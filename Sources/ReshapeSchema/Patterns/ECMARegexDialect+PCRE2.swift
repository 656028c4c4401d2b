extension ECMARegexDialect {
    /// The PCRE2 pattern with the meaning of `tokens` (an ECMA-262 pattern read by
    /// `ECMARegexParser`), for `PCRE2Pattern`'s options (UTF, ALT_BSUX, DOLLAR_ENDONLY, no
    /// UCP). Written out from the tokens rather than copied from the source, so nothing of
    /// PCRE2's own syntax can slip through: every class is spelled as its code points
    /// (`\s`, `.`, `[^]` and `[]` included, so their ECMA meaning is kept), every character
    /// that is not a letter or digit is escaped, and only the constructs both dialects read
    /// alike are left: groups, lookaheads, `|`, quantifiers, `^`, `$`, `\b`, `\B` (ASCII
    /// word characters without UCP, as in ECMA).
    static func pcre2(_ tokens: [ECMARegexParser.Token]) -> String {
        var out = ""
        for token in tokens {
            switch token {
            case .char(let value): out += literal(value)
            case .set(let set): out += pcre2Class(set)
            case .start: out += "^"
            case .end: out += "$"
            case .wordBoundary: out += "\\b"
            case .notWordBoundary: out += "\\B"
            case .open(.capture): out += "("
            case .open(.nonCapture): out += "(?:"
            case .open(.lookahead): out += "(?="
            case .open(.negativeLookahead): out += "(?!"
            case .close: out += ")"
            case .or: out += "|"
            case .quantifier(let min, let max, let lazy):
                switch (min, max) {
                case (0, nil): out += "*"
                case (1, nil): out += "+"
                case (0, 1?): out += "?"
                case (_, nil): out += "{\(min),}"
                case (_, let max?) where max == min: out += "{\(min)}"
                case (_, let max?): out += "{\(min),\(max)}"
                }
                if lazy { out += "?" }
            }
        }
        return out
    }

    /// A class as explicit ranges; surrogates left out (PCRE2 refuses them in UTF mode, and
    /// no string holds one).
    static func pcre2Class(_ set: CodePointSet) -> String {
        var ranges: [ClosedRange<UInt32>] = []
        for r in set.ranges {
            if r.upperBound < 0xD800 || r.lowerBound > 0xDFFF {
                ranges.append(r)
                continue
            }
            if r.lowerBound < 0xD800 { ranges.append(r.lowerBound...0xD7FF) }
            if r.upperBound > 0xDFFF { ranges.append(0xE000...r.upperBound) }
        }
        if ranges.isEmpty { return "(?!)" }
        var out = "["
        for r in ranges {
            out += literal(r.lowerBound)
            if r.upperBound != r.lowerBound {
                if r.upperBound > r.lowerBound + 1 { out += "-" }
                out += literal(r.upperBound)
            }
        }
        return out + "]"
    }

    /// ASCII letters and digits as themselves, other printable ASCII escaped with a backslash
    /// (always a literal in PCRE2), everything else as `\u{H...}`.
    static func literal(_ value: UInt32) -> String {
        switch value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
            return String(UnicodeScalar(UInt8(value)))
        case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E:
            return "\\" + String(UnicodeScalar(UInt8(value)))
        default:
            return "\\u{" + String(value, radix: 16) + "}"
        }
    }
}
