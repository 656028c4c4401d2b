import ReshapeJSON
import ReshapeRules

/// What a route's `client-query:` adds to its operation (docs/queries.md): the query
/// parameters, the page headers, and an answer whose records may lack members `fields` left
/// out.
extension OpenAPIDocument {
    /// `fields`, each filter parameter with its operators and type, `sort`, `limit`, `cursor`.
    static func clientQueryParameters(_ rule: ClientQueryRule) -> [JSON] {
        var parameters: [JSON] = []
        if rule.fields {
            var items: [(String, JSON)] = [("type", .string("string"))]
            if let names = rule.fieldNames { items.append(("enum", .array(names.map(JSON.string)))) }
            parameters.append(
                listParameter(
                    "fields", items: items, maxItems: ClientQueryRule.maxFields,
                    description: "The members kept in each record (dot paths into nested objects); "
                        + "the record's key is always kept."))
        }
        for name in rule.filter {
            let kinds = rule.kinds[name] ?? .all
            let value = valueSchema(kinds)
            parameters.append(parameter(name, in: "query", required: false, schema: value, "Equal to."))
            if !kinds.intersection([.number, .string]).isEmpty {
                let ordered = valueSchema(kinds.intersection([.number, .string]))
                for (op, meaning) in [("gte", "At least"), ("gt", "Above"), ("lte", "At most"), ("lt", "Below")] {
                    parameters.append(
                        parameter(
                            "\(name)[\(op)]", in: "query", required: false, schema: ordered,
                            "\(meaning) (numbers with numbers, strings by bytes)."))
                }
            }
            parameters.append(
                listParameter("\(name)[in]", items: Array(value), maxItems: 64, description: "Equal to one of."))
            parameters.append(parameter("\(name)[ne]", in: "query", required: false, schema: value, "Not equal to."))
            if kinds.contains(.string) {
                parameters.append(
                    parameter(
                        "\(name)[prefix]", in: "query", required: false, schema: ["type": .string("string")],
                        "A string starting with."))
            }
            parameters.append(
                parameter(
                    "\(name)[exists]", in: "query", required: false, schema: ["type": .string("boolean")],
                    "Present and not null (true), or not (false)."))
        }
        if !rule.sort.isEmpty {
            let keys = rule.sort.flatMap { [JSON.string($0), JSON.string("-" + $0)] }
            parameters.append(
                listParameter(
                    "sort", items: [("type", .string("string")), ("enum", .array(keys))], maxItems: rule.sort.count,
                    description: "Sort keys in turn; `-` descending. Stable, in Firebase's mixed-type order."))
        }
        parameters.append(
            parameter(
                "limit", in: "query", required: false,
                schema: [
                    "type": .string("integer"), "minimum": .number(JSONNumber(1)),
                    "maximum": .number(JSONNumber(rule.maxLimit)),
                ],
                rule.page.map { "Records per page (default \($0.size))." } ?? "Records per page."))
        parameters.append(
            parameter(
                "cursor", in: "query", required: false, schema: ["type": .string("string")],
                "Where a page starts: the cursor in the previous page's `Link: <...>; rel=\"next\"`."))
        return parameters
    }

    /// The headers of a view's answer.
    static let clientQueryHeaders: [JSONMember] = [
        JSONMember(
            key: "Link",
            value: header(
                "`<...>; rel=\"next\"` (RFC 8288): the next page, while more records remain.", ["type": "string"])),
        JSONMember(
            key: "Reshape-Total-Count",
            value: header("How many records match the filters.", ["type": "string", "pattern": "^[0-9]+$"])),
    ]

    /// The route's answer as a view may make it: at `array`, records whose members are all
    /// optional, down to `ClientQueryShapes.depth` (`fields` may leave any of them out).
    static func viewShape(_ output: Shape, _ route: Route, _ algebra: ShapeAlgebra) -> Shape {
        guard let rule = route.clientQuery, rule.fields else { return output }
        return replacingItems(output, rule.array.tokens[...], algebra) {
            relaxed($0, depth: ClientQueryShapes.depth, algebra)
        }
    }

    private static func replacingItems(
        _ shape: Shape, _ tokens: ArraySlice<String>, _ algebra: ShapeAlgebra, _ change: (Shape) -> Shape
    ) -> Shape {
        .union(
            algebra.variants(shape).map { variant in
                switch variant {
                case .array(let items) where tokens.isEmpty: return .array(change(items))
                case .object(var object) where !tokens.isEmpty:
                    let name = tokens.first!
                    let inner = replacingItems(object.shape(of: name), tokens.dropFirst(), algebra, change)
                    object.set(name, inner, required: object.isRequired(name))
                    return .object(object)
                default: return variant
                }
            })
    }

    private static func relaxed(_ shape: Shape, depth: Int, _ algebra: ShapeAlgebra) -> Shape {
        let variants = algebra.variants(shape)
        // Only objects change; anything else keeps its schema as written (constraints, `$ref`s).
        guard depth > 0, variants.contains(where: { if case .object = $0 { true } else { false } }) else {
            return shape
        }
        return .union(
            variants.map { variant in
                guard case .object(var object) = variant else { return variant }
                object.required = []
                object.properties = object.properties.map { ($0.name, relaxed($0.shape, depth: depth - 1, algebra)) }
                return .object(object)
            })
    }

    /// A filter value's schema: its field's one kind, else a string (typed when parsed).
    private static func valueSchema(_ kinds: ValueKinds) -> KeyValuePairs<String, JSON> {
        let scalar = kinds.subtracting([.null, .object, .array])
        if scalar == .integer { return ["type": .string("integer")] }
        if scalar == .number || scalar == .fraction { return ["type": .string("number")] }
        if scalar == .boolean { return ["type": .string("boolean")] }
        return ["type": .string("string")]
    }

    /// A comma-separated list (`style: form`, `explode: false`).
    private static func listParameter(
        _ name: String, items: [(String, JSON)], maxItems: Int, description: String
    ) -> JSON {
        .object(
            JSONObject([
                JSONMember(key: "name", value: .string(name)),
                JSONMember(key: "in", value: .string("query")),
                JSONMember(key: "required", value: .bool(false)),
                JSONMember(key: "description", value: .string(description)),
                JSONMember(key: "style", value: .string("form")),
                JSONMember(key: "explode", value: .bool(false)),
                JSONMember(
                    key: "schema",
                    value: .object(
                        JSONObject([
                            JSONMember(key: "type", value: .string("array")),
                            JSONMember(
                                key: "items",
                                value: .object(JSONObject(items.map { JSONMember(key: $0.0, value: $0.1) }))),
                            JSONMember(key: "minItems", value: .number(JSONNumber(1))),
                            JSONMember(key: "maxItems", value: .number(JSONNumber(maxItems))),
                        ]))),
            ]))
    }

    private static func parameter(
        _ name: String, in location: String, required: Bool, schema: KeyValuePairs<String, JSON>,
        _ description: String
    ) -> JSON {
        guard case .object(var object) = parameter(name, in: location, required: required, schema: schema) else {
            return .null
        }
        object.members.insert(JSONMember(key: "description", value: .string(description)), at: 3)
        return .object(object)
    }

    private static func header(_ description: String, _ schema: KeyValuePairs<String, String>) -> JSON {
        .object(
            JSONObject([
                JSONMember(key: "description", value: .string(description)),
                JSONMember(
                    key: "schema",
                    value: .object(JSONObject(schema.map { JSONMember(key: $0.key, value: .string($0.value)) }))),
            ]))
    }
}
