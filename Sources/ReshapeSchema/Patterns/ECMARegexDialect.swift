/// Bridges ECMA-262 regex syntax (what JSON Schema's `pattern` and `format: regex` mean) to
/// Swift `Regex` syntax: rewrites the ECMA forms Swift spells or means differently and rejects
/// syntax that only other dialects accept. Swift `Regex` is the last tier of
/// `CompiledPattern`, and what decides whether a pattern is valid.
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
                case "d", "w":
                    // Spelled out: Swift's asciiOnly* options alone let \W match some digits.
                    let members = next == "d" ? "0-9" : "A-Za-z0-9_"
                    append(inClass ? members : "[" + members + "]")
                    i += 2
                    continue
                case "D", "W":
                    append(next == "D" ? "[^0-9]" : "[^A-Za-z0-9_]")
                    i += 2
                    continue
                case "v":
                    // ECMA's \v is VT alone; Swift's is every vertical space.
                    append("\\u{B}")
                    i += 2
                    continue
                case "s":
                    // ECMA's \s is its own list (U+FEFF in, U+0085 out), spelled out.
                    append(inClass ? swiftSpaces : "[" + swiftSpaces + "]")
                    i += 2
                    continue
                case "S":
                    // Inside a class too: a nested class is a union in Swift.
                    append("[^" + swiftSpaces + "]")
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
                // Literals in ECMA, nested classes and set operators (&&, ~~) in Swift.
                if c == "[" || c == "&" || c == "~" { out.append("\\") }
                out.append(c)
                i += 1
                continue
            }
            if c == "." {
                // Swift's `.` also leaves out VT, FF and U+0085; ECMA's only the line terminators.
                append("[^\\n\\r\\u{2028}\\u{2029}]")
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
                if i < scalars.count, scalars[i] == "^" {
                    out.append(scalars[i])
                    i += 1
                }
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
                        if j < scalars.count, scalars[j] == ")" {
                            throw Unsupported(reason: "inline flag groups are not ECMA-262")
                        }
                    }
                }
            }
            out.append(c)
            i += 1
        }
        return String(out)
    }

    /// ECMA's `\s` as Swift class members, one `\u{...}` each (Swift refuses some of these
    /// code points as range bounds).
    static let swiftSpaces: String = CodePointSet.space.ranges.flatMap { $0 }.map {
        "\\u{" + String($0, radix: 16) + "}"
    }.joined()
}
