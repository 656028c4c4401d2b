import ReshapeJSON
import ReshapeSchema

/// What every value seen at one place has in common, merged over all elements of all
/// samples, and the JSON Schema that says exactly that (`schema(enums:)`). Every value that
/// was added validates against the schema: `required` lists only members present in every
/// object, and a `format` or `enum` is proposed only where every value fits it.
package final class ValueShape {
    /// Formats tried on strings, most specific first; the first one every string has wins.
    static let formats = ["date-time", "date", "email", "uri"]
    /// `enum` is proposed for at most this many distinct strings.
    package static let maxEnumValues = 10

    var nulls = 0, booleans = 0, integers = 0, fractions = 0, strings = 0, objects = 0, arrays = 0
    /// For the outlier heuristics (`Outliers`): empty strings, negative numbers, and strings
    /// that `coerce` would turn into an integer or a number.
    var emptyStrings = 0, negatives = 0, integerStrings = 0, numberStrings = 0
    /// The first such strings, to show in a comment.
    var firstIntegerString: String?, firstNumberString: String?
    /// Formats every non-empty string so far has (with `minLength: 1`, the empty ones are not
    /// the type's); `formats` derives those every string has.
    var nonEmptyFormats = ValueShape.formats
    var formats: [String] {
        emptyStrings == 0 ? nonEmptyFormats : nonEmptyFormats.filter { FormatCheckers.matches("", format: $0) == true }
    }
    /// Distinct strings, in first-seen order, while there are few enough for an `enum`.
    var distinct: [String] = []
    var tooManyDistinct = false
    /// Object members in first-seen order, with how many objects had each.
    var properties: [(name: String, shape: ValueShape, present: Int)] = []
    /// Elements of every array seen.
    var items: ValueShape?

    package init() {}

    package var count: Int { nulls + booleans + integers + fractions + strings + objects + arrays }

    package func add(_ value: JSON) {
        switch value {
        case .null: nulls += 1
        case .bool: booleans += 1
        case .number(let number):
            if number.isInteger { integers += 1 } else { fractions += 1 }
            if number < JSONNumber(0) { negatives += 1 }
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
        if text.isEmpty {
            emptyStrings += 1
        } else {
            nonEmptyFormats.removeAll { FormatCheckers.matches(text, format: $0) != true }
        }
        if let number = JSONNumber(text) {
            numberStrings += 1
            if firstNumberString == nil { firstNumberString = text }
            if number.isInteger {
                integerStrings += 1
                if firstIntegerString == nil { firstIntegerString = text }
            }
        }
        guard !tooManyDistinct, !distinct.contains(text) else { return }
        if distinct.count == Self.maxEnumValues {
            tooManyDistinct = true
            distinct = []
        } else {
            distinct.append(text)
        }
    }

    /// The shape of one member of the objects seen; nil when none had it.
    package func property(_ name: String) -> ValueShape? { properties.first { $0.name == name }?.shape }

    /// A JSON Schema 2020-12 for every value added. `enums`: a string member with a few
    /// distinct values, at least one of them repeated, gets an `enum` (a closed set is a
    /// promise the sample alone cannot make, so only on request).
    package func schema(enums: Bool) -> JSON {
        var none: OutlierFindings?
        return schema(enums: enums, findings: &none, coercible: false)
    }

    /// The schema with the outlier heuristics (`Outliers`) applied when `findings` is not nil:
    /// a small minority of odd values is then read as corrupt, the schema says what the
    /// majority is, and `findings` collects a note for each such constraint. `coercible`:
    /// this is the record type, whose members a `coerce` step before `validate` can reach,
    /// so integers sent as strings there are coerced rather than dropped.
    package func schema(enums: Bool, findings: inout OutlierFindings?, coercible: Bool) -> JSON {
        schema(enums: enums, path: [], findings: &findings, coerceAs: nil, coercibleMembers: coercible)
    }

    private enum Kind: CaseIterable { case object, array, string, number, boolean }

    private func count(_ kind: Kind) -> Int {
        switch kind {
        case .object: objects
        case .array: arrays
        case .string: strings
        case .number: integers + fractions
        case .boolean: booleans
        }
    }

    private static func describe(_ kind: Kind, count: Int) -> String {
        let (article, noun) =
            switch kind {
            case .object: ("an", "object")
            case .array: ("an", "array")
            case .string: ("a", "string")
            case .number: ("a", "number")
            case .boolean: ("a", "boolean")
            }
        return count == 1 ? "\(article) \(noun)" : noun + "s"
    }

    private func schema(
        enums: Bool, path: [String], findings: inout OutlierFindings?, coerceAs member: String?,
        coercibleMembers: Bool
    ) -> JSON {
        var members: [JSONMember] = []
        var kept = Kind.allCases.filter { count($0) > 0 }
        var notes: [String] = []

        // A minority of another JSON type than the rest: keep the majority's type (`null`
        // is not counted: a nullable member is common and meant). Integers sent as strings
        // next to integers are coerced when a `coerce` step can reach them.
        let nonNull = count - nulls
        if findings != nil, kept.count >= 2, let top = kept.max(by: { count($0) < count($1) }),
            Outliers.isMinority(nonNull - count(top), of: nonNull)
        {
            let odd = kept.filter { $0 != top }
            var coerced = 0
            if top == .number, let member {
                let target = fractions > 0 ? "number" : "integer"
                coerced = target == "integer" ? integerStrings : numberStrings
                if coerced > 0 {
                    let example = (target == "integer" ? firstIntegerString : firstNumberString) ?? ""
                    let note =
                        "\(coerced) of \(nonNull) had \(target == "integer" ? "an integer" : "a number") as a string"
                        + " (\(JSON.string(example).serializedString())): coerced to \(target)"
                    findings?.coercions.append((member, target, note))
                    notes.append(note + " by the coerce step")
                }
            }
            let rest = nonNull - count(top) - coerced
            if rest > 0 {
                let kinds = odd.map { ($0, count($0) - ($0 == .string ? coerced : 0)) }.filter { $0.1 > 0 }
                    .map { Self.describe($0.0, count: $0.1) }
                notes.append(
                    "\(rest) of \(nonNull) had \(kinds.joined(separator: " or ")) here, not \(Self.describe(top, count: 1)): treated as corrupt"
                )
            }
            kept = [top]
        }

        var types: [String] = []
        if kept.contains(.object) { types.append("object") }
        if kept.contains(.array) { types.append("array") }
        if kept.contains(.string) { types.append("string") }
        if kept.contains(.number) { types.append(fractions > 0 ? "number" : "integer") }
        if kept.contains(.boolean) { types.append("boolean") }
        if nulls > 0 { types.append("null") }
        if types.isEmpty { return .object(JSONObject()) }  // nothing seen (only empty arrays)

        if enums, types == ["string"] || types == ["string", "null"], !tooManyDistinct, distinct.count < strings {
            var values = distinct.map(JSON.string)
            if nulls > 0 { values.append(.null) }
            return .object(JSONObject([JSONMember(key: "enum", value: .array(values))]))
        }
        members.append(
            JSONMember(key: "type", value: types.count == 1 ? .string(types[0]) : .array(types.map(JSON.string))))
        if kept.contains(.string) {
            let nonEmpty = findings != nil && Outliers.isMinority(emptyStrings, of: strings)
            if let format = (nonEmpty ? nonEmptyFormats : formats).first {
                members.append(JSONMember(key: "format", value: .string(format)))
            }
            if nonEmpty {
                members.append(JSONMember(key: "minLength", value: .number(JSONNumber(1))))
                notes.append("\(emptyStrings) of \(strings) had \"\" here: treated as corrupt")
            }
        }
        if kept.contains(.number), findings != nil, Outliers.isMinority(negatives, of: integers + fractions) {
            members.append(JSONMember(key: "minimum", value: .number(JSONNumber(0))))
            notes.append("\(negatives) of \(integers + fractions) had a negative number here: treated as corrupt")
        }
        if !notes.isEmpty { findings?.notes.append((path, notes.joined(separator: "; "))) }
        if kept.contains(.object) {
            var required: [JSON] = []
            var missing: [String] = []
            for property in properties {
                if property.present == objects {
                    required.append(.string(property.name))
                } else if findings != nil, Outliers.isMinority(objects - property.present, of: objects) {
                    // Present in most records, missing in a few: those few are corrupt.
                    required.append(.string(property.name))
                    missing.append("\(objects - property.present) of \(objects) had no \(property.name)")
                }
            }
            if !required.isEmpty { members.append(JSONMember(key: "required", value: .array(required))) }
            if !missing.isEmpty {
                findings?.notes.append((path + ["required"], missing.joined(separator: ", ") + ": treated as corrupt"))
            }
            if !properties.isEmpty {
                var schemas: [JSONMember] = []
                for property in properties {
                    schemas.append(
                        JSONMember(
                            key: property.name,
                            value: property.shape.schema(
                                enums: enums, path: path + ["properties", property.name], findings: &findings,
                                coerceAs: coercibleMembers ? property.name : nil, coercibleMembers: false)))
                }
                members.append(JSONMember(key: "properties", value: .object(JSONObject(schemas))))
            }
        }
        if kept.contains(.array), let items, items.count > 0 {
            members.append(
                JSONMember(
                    key: "items",
                    value: items.schema(
                        enums: enums, path: path + ["items"], findings: &findings,
                        coerceAs: nil, coercibleMembers: false)))
        }
        return .object(JSONObject(members))
    }
}

/// `reshape infer`'s outlier heuristics: in a collection with enough records, a small
/// minority of records that break a pattern the rest follow is read as corrupt (as a rule
/// author reading the sample would) instead of widening the type to admit it. Each finding
/// becomes a constraint that makes `validate: { invalid: drop }` drop that minority (or a
/// `coerce` step that fixes it), with a comment in the draft saying what it came from.
package enum Outliers {
    /// A heuristic looks at a place only when it has at least this many values (records,
    /// present members, strings, numbers): with 4, the smallest minority (one) stands against
    /// at least three that agree.
    package static let minValues = 4
    /// The odd ones are at most this share of the values they are counted among (1/4).
    package static let maxShareDenominator = 4

    /// `odd` of `total` values break the pattern: few enough, among enough, to be corrupt.
    package static func isMinority(_ odd: Int, of total: Int) -> Bool {
        total >= minValues && odd > 0 && odd * maxShareDenominator <= total
    }
}

/// What the outlier heuristics found while a schema was built.
package struct OutlierFindings {
    /// A comment for the author and the path (below the schema, as YAML keys) of the line it belongs to.
    package var notes: [(path: [String], text: String)] = []
    /// Members of the record type to convert in a `coerce` step before `validate`.
    package var coercions: [(member: String, target: String, note: String)] = []
    package init() {}
}
