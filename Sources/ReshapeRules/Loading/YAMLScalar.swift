import ReshapeJSON

/// YAML 1.2 core-schema scalars to JSON. Only plain (unquoted) scalars can be anything but
/// a string; numbers keep their text, normalized only where YAML spells them in a way JSON
/// does not (`+1`, `012`, `.5`, `1.`).
enum YAMLScalar {
    static func json(_ text: String, plain: Bool) -> JSON {
        guard plain else { return .string(text) }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let number = JSONNumber(text) { return .number(number) }
        if let number = normalizedNumber(text) { return .number(number) }
        return .string(text)
    }

    /// `+1` → `1`, `007` → `7`, `.5` → `0.5`, `1.` → `1.0`; nil when it is not a decimal number.
    private static func normalizedNumber(_ text: String) -> JSONNumber? {
        var body = Substring(text)
        var sign = ""
        if body.first == "+" {
            body = body.dropFirst()
        } else if body.first == "-" {
            sign = "-"
            body = body.dropFirst()
        }
        var mantissa = body
        var exponent: Substring = ""
        if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = body[..<e]
            exponent = body[e...]
        }
        var integer = mantissa
        var fraction: Substring? = nil
        if let dot = mantissa.firstIndex(of: ".") {
            integer = mantissa[..<dot]
            fraction = mantissa[mantissa.index(after: dot)...]
        }
        guard !integer.isEmpty || !(fraction ?? "").isEmpty,
            integer.allSatisfy(\.isASCII), integer.allSatisfy(\.isNumber),
            (fraction ?? "").allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        let trimmed = integer.drop { $0 == "0" }
        var candidate = sign + (trimmed.isEmpty ? "0" : String(trimmed))
        if let fraction { candidate += "." + (fraction.isEmpty ? "0" : String(fraction)) }
        candidate += exponent
        return JSONNumber(candidate)
    }
}
