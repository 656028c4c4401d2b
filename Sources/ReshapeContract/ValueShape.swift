import ReshapeJSON
import ReshapeSchema

/// What every value seen at one place has in common, merged over all elements of all
/// samples, and the JSON Schema that says exactly that (`schema(enums:)`). Every value that
/// was added validates against the schema: `required` lists only members present in every
/// object, and a `format` or `enum` is proposed only where every value fits it.
public final class ValueShape {
    /// Formats tried on strings, most specific first; the first one every string has wins.
    static let formats = ["date-time", "date", "email", "uri"]
    /// `enum` is proposed for at most this many distinct strings.
    public static let maxEnumValues = 10

    var nulls = 0, booleans = 0, integers = 0, fractions = 0, strings = 0, objects = 0, arrays = 0
    /// Formats every string so far has.
    var formats = ValueShape.formats
    /// Distinct strings, in first-seen order, while there are few enough for an `enum`.
    var distinct: [String] = []
    var tooManyDistinct = false
    /// Object members in first-seen order, with how many objects had each.
    var properties: [(name: String, shape: ValueShape, present: Int)] = []
    /// Elements of every array seen.
    var items: ValueShape?

    public init() {}

    public var count: Int { nulls + booleans + integers + fractions + strings + objects + arrays }

    public func add(_ value: JSON) {
        switch value {
        case .null: nulls += 1
        case .bool: booleans += 1
        case .number(let number): if number.isInteger { integers += 1 } else { fractions += 1 }
        case .string(let text): addString(text)
        case .object(let object):
            objects += 1
            for member in object.members {
                if let i = properties.firstIndex(where: { $0.name == member.key }) {
                    properties[i].present += 1
                    properties[i].shape.add(member.value)
                } else {
                    let shape = ValueShape()
                    shape.add(member.value)
                    properties.append((member.key, shape, 1))
                }
            }
        case .array(let elements):
            arrays += 1
            let shape = items ?? ValueShape()
            for element in elements { shape.add(element) }
            items = shape
        }
    }

    private func addString(_ text: String) {
        strings += 1
        formats.removeAll { FormatCheckers.matches(text, format: $0) != true }
        guard !tooManyDistinct, !distinct.contains(text) else { return }
        if distinct.count == Self.maxEnumValues { tooManyDistinct = true; distinct = [] } else { distinct.append(text) }
    }

    /// The shape of one member of the objects seen; nil when none had it.
    public func property(_ name: String) -> ValueShape? { properties.first { $0.name == name }?.shape }

    /// A JSON Schema 2020-12 for every value added. `enums`: a string member with a few
    /// distinct values, at least one of them repeated, gets an `enum` (a closed set is a
    /// promise the sample alone cannot make, so only on request).
    public func schema(enums: Bool) -> JSON {
        var members: [JSONMember] = []
        var types: [String] = []
        if objects > 0 { types.append("object") }
        if arrays > 0 { types.append("array") }
        if strings > 0 { types.append("string") }
        if fractions > 0 { types.append("number") } else if integers > 0 { types.append("integer") }
        if booleans > 0 { types.append("boolean") }
        if nulls > 0 { types.append("null") }
        if types.isEmpty { return .object(JSONObject()) }  // nothing seen (only empty arrays)

        if enums, types == ["string"] || types == ["string", "null"], !tooManyDistinct, distinct.count < strings {
            var values = distinct.map(JSON.string)
            if nulls > 0 { values.append(.null) }
            return .object(JSONObject([JSONMember(key: "enum", value: .array(values))]))
        }
        members.append(JSONMember(key: "type", value: types.count == 1 ? .string(types[0]) : .array(types.map(JSON.string))))
        if strings > 0, let format = formats.first {
            members.append(JSONMember(key: "format", value: .string(format)))
        }
        if objects > 0 {
            let required = properties.filter { $0.present == objects }.map { JSON.string($0.name) }
            if !required.isEmpty { members.append(JSONMember(key: "required", value: .array(required))) }
            if !properties.isEmpty {
                members.append(JSONMember(key: "properties", value: .object(JSONObject(properties.map {
                    JSONMember(key: $0.name, value: $0.shape.schema(enums: enums))
                }))))
            }
        }
        if let items, items.count > 0 {
            members.append(JSONMember(key: "items", value: items.schema(enums: enums)))
        }
        return .object(JSONObject(members))
    }
}
