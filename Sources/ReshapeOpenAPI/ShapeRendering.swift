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
            return .object(JSONObject([JSONMember(key: "anyOf", value: .array(parts.map { $0.jsonSchema(types) }))]))
        case .allOf(let parts):
            return .object(JSONObject([JSONMember(key: "allOf", value: .array(parts.map { $0.jsonSchema(types) }))]))
        case .schema(let schema):
            return types.rewritingReferences(schema)
        }
    }
}
