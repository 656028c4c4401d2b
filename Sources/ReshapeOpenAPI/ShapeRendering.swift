import ReshapeJSON

extension Shape {
    /// The shape as a JSON Schema (2020-12, as OpenAPI 3.1 takes it), references to rule
    /// types pointing at their components.
    package func jsonSchema(_ types: TypeCatalog) -> JSON {
        switch self {
        case .any:
            return .object(JSONObject())
        case .never:
            return .bool(false)
        case .scalars(let kinds):
            let names = kinds.typeNames
            return .object(
                JSONObject([
                    JSONMember(
                        key: "type", value: names.count == 1 ? .string(names[0]) : .array(names.map(JSON.string)))
                ]))
        case .constant(let value):
            return .object(JSONObject([JSONMember(key: "const", value: value)]))
        case .array(let items):
            var object = JSONObject([JSONMember(key: "type", value: .string("array"))])
            if case .any = items {} else { object["items"] = items.jsonSchema(types) }
            return .object(object)
        case .object(let shape):
            var object = JSONObject([JSONMember(key: "type", value: .string("object"))])
            // A member that may be anything says nothing more than an open object does.
            let open: Bool = if case .any = shape.additional { true } else { false }
            let properties = shape.properties.filter { property in
                if open, case .any = property.shape { return false }
                return true
            }
            if !properties.isEmpty {
                object["properties"] = .object(
                    JSONObject(properties.map { JSONMember(key: $0.name, value: $0.shape.jsonSchema(types)) }))
            }
            if !shape.required.isEmpty { object["required"] = .array(shape.required.map(JSON.string)) }
            if case .any = shape.additional {
            } else {
                object["additionalProperties"] = shape.additional.jsonSchema(types)
            }
            return .object(object)
        case .anyOf(let parts):
            let rendered = Self.unionParts(parts, types)
            if rendered.count == 1 { return rendered[0] }
            return .object(JSONObject([JSONMember(key: "anyOf", value: .array(rendered))]))
        case .allOf(let parts):
            return .object(JSONObject([JSONMember(key: "allOf", value: .array(parts.map { $0.jsonSchema(types) }))]))
        case .schema(let schema):
            return types.rewritingReferences(schema)
        }
    }

    /// A union's parts as schemas, a part that is `null` alone folded into the `type` of the
    /// first array or object part (`"type": ["null", "object"]`): the same values, since that
    /// part's other keywords apply only to arrays or objects. swift-openapi-generator supports
    /// no schema of type `null` and leaves out the whole member that holds one; the folded
    /// form it reads as an optional.
    private static func unionParts(_ parts: [Shape], _ types: TypeCatalog) -> [JSON] {
        var rendered = parts.map { $0.jsonSchema(types) }
        let null = parts.firstIndex { if case .scalars(let kinds) = $0 { kinds == .null } else { false } }
        let host = parts.firstIndex { part in
            switch part {
            case .array, .object: true
            default: false
            }
        }
        guard let null, let host, case .object(var schema) = rendered[host], case .string(let type)? = schema["type"]
        else { return rendered }
        schema["type"] = .array([.string("null"), .string(type)])
        rendered[host] = .object(schema)
        rendered.remove(at: null)
        return rendered
    }
}
