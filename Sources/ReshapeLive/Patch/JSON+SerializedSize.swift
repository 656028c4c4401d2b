import ReshapeJSON

// How many bytes the compact writer (JSONWriter.swift) would write, counted without writing
// them: the differ weighs a run of operations against one `replace`, and that must not cost a
// serialization of a whole array for every change. The escapes counted here are the writer's;
// a test holds the two together.

extension JSON {
    /// The length of `serialized()`, or some count above `limit` as soon as it exceeds it.
    func serializedSize(limit: Int = .max) -> Int {
        var size = 0
        addSerializedSize(to: &size, limit: limit)
        return size
    }

    private func addSerializedSize(to size: inout Int, limit: Int) {
        switch self {
        case .null: size += 4
        case .bool(let flag): size += flag ? 4 : 5
        case .number(let number): size += number.text.utf8.count
        case .string(let string): size += JSON.quotedSize(string)
        case .array(let elements):
            // `[`, then after each element `,` or `]`.
            size += elements.isEmpty ? 2 : 1
            for element in elements {
                guard size <= limit else { return }
                size += 1
                element.addSerializedSize(to: &size, limit: limit)
            }
        case .object(let object):
            // `{`, then in each member `:`, and after it `,` or `}`.
            size += object.isEmpty ? 2 : 1
            for member in object.members {
                guard size <= limit else { return }
                size += 2 + JSON.quotedSize(member.key)
                member.value.addSerializedSize(to: &size, limit: limit)
            }
        }
    }

    /// The length of `string` written as a JSON string, quotes included.
    static func quotedSize(_ string: String) -> Int {
        var size = 2 + string.utf8.count
        for byte in string.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            switch byte {
            // `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`; other control characters as `\u00XX`.
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: size += 1
            default: size += 5
            }
        }
        return size
    }
}
