// A tiny ordered JSON value for canned demo data. The demo upstream is a test tool and does
// not depend on ReshapeJSON on purpose: it must stay an independent witness of what Reshape does.

/// A JSON value whose object members keep the order they were written in.
indirect enum DemoValue: Sendable {
    case object([(String, DemoValue)])
    case array([DemoValue])
    case string(String)
    /// A number kept as its JSON text, so the data says exactly what goes on the wire.
    case number(String)
    case bool(Bool)
    case null

    static func int(_ value: Int) -> DemoValue { .number(String(value)) }

    /// The member `name` of an object, or the element at index `name` of an array (Firebase paths).
    func child(_ name: String) -> DemoValue? {
        switch self {
        case .object(let members):
            return members.first { $0.0 == name }?.1
        case .array(let elements):
            guard let index = Int(name), index >= 0, index < elements.count else { return nil }
            if case .null = elements[index] { return nil }
            return elements[index]
        default:
            return nil
        }
    }

    /// Firebase's `shallow=true`: every child of a container becomes `true`.
    var shallow: DemoValue {
        switch self {
        case .object(let members):
            return .object(members.map { ($0.0, .bool(true)) })
        case .array(let elements):
            var members: [(String, DemoValue)] = []
            for (index, element) in elements.enumerated() {
                if case .null = element { continue }
                members.append((String(index), .bool(true)))
            }
            return .object(members)
        default:
            return self
        }
    }

    /// Compact (`pretty == false`) or two-space indented JSON text.
    func text(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let text): out += text
        case .string(let s): out += DemoValue.quoted(s)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                element.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, (name, value)) in members.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                out += DemoValue.quoted(name)
                out += pretty ? ": " : ":"
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    /// `s` as a JSON string literal.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
