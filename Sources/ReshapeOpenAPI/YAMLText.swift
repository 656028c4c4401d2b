import ReshapeJSON

/// A JSON value as block-style YAML (1.2, and 1.1 readers agree): every string and key
/// double-quoted, so nothing is read as a number, boolean or null by accident.
public enum YAMLText {
    public static func of(_ value: JSON) -> String {
        var lines: [String] = []
        if let scalar = inline(value) {
            lines.append(scalar)
        } else {
            block(value, indent: 0, into: &lines)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A scalar or an empty container on one line; nil for a non-empty container.
    private static func inline(_ value: JSON) -> String? {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.text
        case .string(let text): return quoted(text)
        case .array(let elements): return elements.isEmpty ? "[]" : nil
        case .object(let object): return object.isEmpty ? "{}" : nil
        }
    }

    private static func block(_ value: JSON, indent: Int, into lines: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        switch value {
        case .object(let object):
            for member in object.members {
                if let scalar = inline(member.value) {
                    lines.append(pad + quoted(member.key) + ": " + scalar)
                } else {
                    lines.append(pad + quoted(member.key) + ":")
                    block(member.value, indent: indent + 2, into: &lines)
                }
            }
        case .array(let elements):
            for element in elements {
                if let scalar = inline(element) {
                    lines.append(pad + "- " + scalar)
                } else {
                    // The nested block's first line starts at indent + 2: the dash takes its place.
                    let first = lines.count
                    block(element, indent: indent + 2, into: &lines)
                    lines[first] = pad + "- " + lines[first].dropFirst(indent + 2)
                }
            }
        default:
            lines.append(pad + (inline(value) ?? ""))
        }
    }

    /// A double-quoted YAML string: `"` and `\` escaped, and every character that is not
    /// printable in YAML (controls, C1 controls, surrogates cannot occur, BOM) as `\uXXXX`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let v = scalar.value
                if v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0xFEFF || v == 0xFFFE || v == 0xFFFF {
                    let hex = String(v, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
