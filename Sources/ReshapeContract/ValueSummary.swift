import ReshapeJSON

/// A value in one line for a person: its kind and size, then as much of its compact JSON
/// as fits, cut with `…`. Enough to see what a step did without paging through a document.
package enum ValueSummary {
    /// `array(7) [{"objectId":"-Nq…","name":"Ada"}, …]`, at most about `width` characters.
    package static func line(_ value: JSON, width: Int = 100) -> String {
        let head = kind(value)
        return head + " " + compact(value, width: width - head.count - 1)
    }

    /// `array(3)`, `object(2)`, `string`, `number`, `boolean`, `null`.
    package static func kind(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array(let elements): return "array(\(elements.count))"
        case .object(let object): return "object(\(object.count))"
        }
    }

    /// The compact JSON alone, cut with `…` after about `width` characters.
    package static func compact(_ value: JSON, width: Int = 100) -> String {
        var text = ""
        let limit = max(16, width) - 1
        if !write(value, into: &text, limit: limit) { text = String(text.prefix(limit)) + "…" }
        return text
    }

    /// Appends `value` as compact JSON with spaces after `,` and `:`; false once `text` is
    /// past `limit` (the rest is never written, so a large document costs only what is shown).
    private static func write(_ value: JSON, into text: inout String, limit: Int) -> Bool {
        switch value {
        case .array(let elements):
            text += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { text += ", " }
                if text.count > limit || !write(element, into: &text, limit: limit) { return false }
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { text += ", " }
                text += JSON.string(member.key).serializedString() + ": "
                if text.count > limit || !write(member.value, into: &text, limit: limit) { return false }
            }
            text += "}"
        default:
            text += value.serializedString()
        }
        return text.count <= limit
    }
}
