import ReshapeJSON

/// Writes JSON values as block YAML that people will read and edit (drafted rule files, the
/// OpenAPI document): mappings and lists indented, small leaf objects and lists on one line,
/// and a string double-quoted whenever YAML (1.2, or a 1.1 reader such as PyYAML) could read
/// it as anything but that string. The one YAML writer: `reshape infer` and `reshape openapi
/// --yaml` both use it.
package enum YAMLWriter {
    /// A one-line `{ a: 1 }` or `[a, b]` longer than this is written as a block instead.
    static let flowWidth = 88

    /// `value` as YAML lines; a mapping or list at the top starts in column 0.
    /// `comments`: text for the end of the line of the member at a path (mapping keys, list
    /// indices as decimal strings); a member written on one line with what is inside it
    /// carries the comments of everything inside too.
    package static func write(_ value: JSON, comments: [[String]: String] = [:]) -> String {
        var out = ""
        let writer = Comments(byPath: comments)
        switch value {
        case .object(let object) where !object.isEmpty: block(object, indent: 0, path: [], comments: writer, into: &out)
        case .array(let elements) where !elements.isEmpty:
            block(elements, indent: 0, path: [], comments: writer, into: &out)
        default: out = scalarOrFlow(value) + "\n"
        }
        return out
    }

    /// End-of-line comments by path.
    struct Comments {
        var byPath: [[String]: String]

        /// `  # text` for the comment at `path` (and, for a one-line member, below it), or "".
        func suffix(_ path: [String], inside: Bool) -> String {
            guard !byPath.isEmpty else { return "" }
            let texts = byPath.filter { $0.key == path || (inside && $0.key.starts(with: path)) }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
            return texts.isEmpty ? "" : "  # " + texts.joined(separator: "; ")
        }
    }

    private static func block(
        _ object: JSONObject, indent: Int, path: [String], comments: Comments, into out: inout String
    ) {
        let pad = String(repeating: " ", count: indent)
        for member in object.members {
            out += pad + key(member.key) + ":"
            entry(
                member.value, indent: indent, preferBlock: blockKeys.contains(member.key), path: path + [member.key],
                comments: comments, into: &out)
        }
    }

    private static func block(
        _ elements: [JSON], indent: Int, path: [String], comments: Comments, into out: inout String
    ) {
        let pad = String(repeating: " ", count: indent)
        for (i, element) in elements.enumerated() {
            let elementPath = path + [String(i)]
            // A one-member object (a transform step) reads best as `- name: argument`.
            if case .object(let object) = element, !object.isEmpty,
                object.count == 1 || flow(element, budget: flowWidth - indent) == nil
            {
                // The first member shares the dash's line; the rest line up under it.
                var nested = ""
                block(object, indent: indent + 2, path: elementPath, comments: comments, into: &nested)
                out += pad + "- " + nested.dropFirst(indent + 2)
            } else if case .array(let inner) = element, !inner.isEmpty, flow(element, budget: flowWidth - indent) == nil
            {
                out += pad + "-" + comments.suffix(elementPath, inside: false) + "\n"
                block(inner, indent: indent + 2, path: elementPath, comments: comments, into: &out)
            } else {
                out += pad + "- " + scalarOrFlow(element) + comments.suffix(elementPath, inside: true) + "\n"
            }
        }
    }

    /// What follows `key:` — a scalar or flow on the same line, else a nested block.
    private static func entry(
        _ value: JSON, indent: Int, preferBlock: Bool, path: [String], comments: Comments,
        into out: inout String
    ) {
        if !(preferBlock && value.isContainer && !value.isEmptyContainer),
            let line = flow(value, budget: flowWidth - indent)
        {
            out += " " + line + comments.suffix(path, inside: true) + "\n"
            return
        }
        out += comments.suffix(path, inside: false) + "\n"
        switch value {
        case .object(let object): block(object, indent: indent + 2, path: path, comments: comments, into: &out)
        case .array(let elements): block(elements, indent: indent + 2, path: path, comments: comments, into: &out)
        default: break
        }
    }

    private static func scalarOrFlow(_ value: JSON) -> String {
        flow(value, budget: Int.max) ?? value.serializedString()
    }

    /// A one-line spelling: scalars always; containers when they fit.
    static func flow(_ value: JSON, budget: Int) -> String? {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.text
        case .string(let text): return scalar(text)
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            var parts: [String] = []
            for element in elements {
                guard let part = flow(element, budget: budget) else { return nil }
                parts.append(part)
            }
            let line = "[" + parts.joined(separator: ", ") + "]"
            return line.count <= budget ? line : nil
        case .object(let object):
            if object.isEmpty { return "{}" }
            var parts: [String] = []
            for member in object.members {
                if member.value.isContainer && !member.value.isEmptyContainer && blockKeys.contains(member.key) {
                    return nil
                }
                guard let part = flow(member.value, budget: budget) else { return nil }
                parts.append(key(member.key) + ": " + part)
            }
            let line = "{ " + parts.joined(separator: ", ") + " }"
            return line.count <= budget ? line : nil
        }
    }

    static func key(_ name: String) -> String { scalar(name) }

    /// Rule-file members whose contents read better one per line, however short.
    static let blockKeys: Set<String> = [
        "upstreams", "types", "routes", "properties", "transform", "do", "examples", "upstream", "response",
    ]

    /// Words YAML 1.1 (libyaml) reads as booleans or null when plain.
    private static let reserved: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"]

    /// A string plain when it can only mean itself, otherwise JSON-quoted.
    static func scalar(_ text: String) -> String {
        var plain = !text.isEmpty && !reserved.contains(text.lowercased())
        for (i, byte) in text.utf8.enumerated() where plain {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
                UInt8(ascii: "$"), UInt8(ascii: "/"):
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "@"):
                plain = i > 0  // a leading digit, dot, dash or @ means a number, a list or a reserved sign
            default:
                plain = false
            }
        }
        return plain ? text : quoted(text)
    }

    /// A double-quoted YAML string: `"` and `\` escaped, and every character YAML does not
    /// allow unescaped (C0 and C1 controls, DEL, the BOM and the non-characters U+FFFE/U+FFFF)
    /// or a YAML 1.1 reader reads as a line break (U+2028, U+2029)
    /// as `\uXXXX`. A JSON string would not do: JSON leaves C1 controls and DEL raw.
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
                // U+2028 and U+2029 too: YAML 1.1 readers (PyYAML) take them for line breaks.
                if v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x2028 || v == 0x2029 || v == 0xFEFF || v == 0xFFFE
                    || v == 0xFFFF
                {
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
