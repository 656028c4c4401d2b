/// Bridges ECMA-262 regex syntax (what JSON Schema's `pattern` and `format: regex` mean) to
/// Swift `Regex` syntax: rewrites the ECMA forms Swift spells differently and rejects
/// syntax that only other dialects accept.
enum ECMARegexDialect {
    struct Unsupported: Error {
        let reason: String
    }

    static func translate(_ source: String) throws(Unsupported) -> String {
        let scalars = Array(source.unicodeScalars)
        var out = String.UnicodeScalarView()
        var inClass = false
        var i = 0
        func append(_ text: String) { out.append(contentsOf: text.unicodeScalars) }
        while i < scalars.count {
            let c = scalars[i]
            if c == "\\" {
                guard i + 1 < scalars.count else { throw Unsupported(reason: "trailing backslash") }
                let next = scalars[i + 1]
                switch next {
                case "c":
                    // \cA..\cZ: control characters.
                    guard i + 2 < scalars.count, scalars[i + 2].isASCII, Formats.isAlpha(UInt8(scalars[i + 2].value))
                    else { throw Unsupported(reason: "\\c must be followed by a letter") }
                    let letter = scalars[i + 2].value
                    append("\\u{" + String(letter & 0x1F, radix: 16) + "}")
                    i += 3
                    continue
                case "a", "e", "A", "z", "Z", "h", "H", "R", "X", "K", "G", "N", "o", "Q", "E":
                    throw Unsupported(reason: "\\\(next) is not an ECMA-262 escape")
                case "s":
                    // ECMA's \s also covers U+FEFF (ZERO WIDTH NO-BREAK SPACE).
                    append(inClass ? "\\s\\u{FEFF}" : "[\\s\\u{FEFF}]")
                    i += 2
                    continue
                case "S" where !inClass:
                    append("[^\\s\\u{FEFF}]")
                    i += 2
                    continue
                default:
                    out.append(c)
                    out.append(next)
                    i += 2
                    continue
                }
            }
            if inClass {
                if c == "]" { inClass = false }
                if c == "[" { append("\\[") } else { out.append(c) }
                i += 1
                continue
            }
            if c == "[" {
                // ECMA's empty classes: [] matches nothing, [^] matches anything.
                if i + 1 < scalars.count, scalars[i + 1] == "]" {
                    append("(?!)")
                    i += 2
                    continue
                }
                if i + 2 < scalars.count, scalars[i + 1] == "^", scalars[i + 2] == "]" {
                    append("[\\s\\S]")
                    i += 3
                    continue
                }
                inClass = true
                out.append(c)
                i += 1
                if i < scalars.count, scalars[i] == "^" { out.append(scalars[i]); i += 1 }
                // A "]" right after "[" or "[^" is a literal in Swift but ends the class in ECMA;
                // handled above for the empty cases.
                continue
            }
            if c == "(", i + 1 < scalars.count, scalars[i + 1] == "?" {
                let rest = scalars[(i + 2)...]
                if let first = rest.first {
                    if first == "P" || first == "#" { throw Unsupported(reason: "(?\(first) is not ECMA-262") }
                    // Inline flag groups like (?i) or (?ims) are not ECMA-262.
                    if first != "<" && first != "=" && first != "!" && first != ":" {
                        var j = rest.startIndex
                        while j < scalars.count, ("a"..."z").contains(scalars[j]) || scalars[j] == "-" { j += 1 }
                        if j < scalars.count, scalars[j] == ")" { throw Unsupported(reason: "inline flag groups are not ECMA-262") }
                    }
                }
            }
            out.append(c)
            i += 1
        }
        return String(out)
    }
}
