import ReshapeJSON

/// The rule types as OpenAPI components: their component names, their `$ref`s rewritten to
/// `#/components/schemas/...`, and a structural reading of a type for the steps that need to
/// look inside one (`rename` after `validate`, say).
///
/// Rule types refer to each other as ReshapeSchema's `SchemaSet` resolves them: by bare name
/// (`"$ref": "Address"`), as `#/types/Address[/pointer]`, or as `Address#/pointer`. Those are
/// rewritten; any other reference is left as written.
package struct TypeCatalog: Sendable {
    /// Type name → schema as written, in file order.
    package let types: [(name: String, schema: JSON)]
    /// Type name → component name (`[A-Za-z0-9._-]+`, unique).
    package let componentNames: [String: String]
    private let schemas: [String: JSON]

    package static let componentPrefix = "#/components/schemas/"

    package init(types: [(name: String, schema: JSON)], reserved: Set<String> = []) {
        self.types = types
        var names: [String: String] = [:]
        var used = reserved
        for (name, _) in types {
            var base = String(
                String.UnicodeScalarView(
                    name.unicodeScalars.map { scalar in
                        scalar.isASCII
                            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                                || "._-".unicodeScalars.contains(scalar))
                            ? scalar : "_"
                    }))
            if base.isEmpty { base = "_" }
            var candidate = base
            var n = 2
            while used.contains(candidate) {
                candidate = "\(base)_\(n)"
                n += 1
            }
            used.insert(candidate)
            names[name] = candidate
        }
        componentNames = names
        var schemas: [String: JSON] = [:]
        for (name, schema) in types { schemas[name] = schema }
        self.schemas = schemas
    }

    // MARK: References

    /// Where a rule-form reference points: a type and a JSON Pointer inside it; nil for a
    /// reference that is not to a type.
    func target(of reference: String) -> (type: String, pointer: String)? {
        if schemas[reference] != nil { return (reference, "") }
        if reference.hasPrefix("#/types/") {
            guard let pointer = JSONPointer(String(reference.dropFirst())), pointer.tokens.count >= 2,
                schemas[pointer.tokens[1]] != nil
            else { return nil }
            return (pointer.tokens[1], JSONPointer(tokens: Array(pointer.tokens.dropFirst(2))).description)
        }
        if let hash = reference.firstIndex(of: "#") {
            let name = String(reference[..<hash])
            let fragment = String(reference[reference.index(after: hash)...])
            if schemas[name] != nil, fragment.isEmpty || fragment.hasPrefix("/") { return (name, fragment) }
        }
        return nil
    }

    /// `schema` with every reference to a type rewritten to its component.
    package func rewritingReferences(_ schema: JSON) -> JSON {
        switch schema {
        case .object(var object):
            for i in object.members.indices {
                if object.members[i].key == "$ref", case .string(let reference) = object.members[i].value,
                    let target = target(of: reference), let component = componentNames[target.type]
                {
                    object.members[i].value = .string(Self.componentPrefix + component + target.pointer)
                } else {
                    object.members[i].value = rewritingReferences(object.members[i].value)
                }
            }
            return .object(object)
        case .array(let elements):
            return .array(elements.map(rewritingReferences))
        default:
            return schema
        }
    }

    /// Whether a part of a type can stand on its own in another schema: no `$id`, anchors or
    /// dynamic references (which depend on where the schema sits), and every `$ref` to a type.
    func isPortable(_ schema: JSON) -> Bool {
        switch schema {
        case .object(let object):
            for member in object.members {
                switch member.key {
                case "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor":
                    return false
                case "$ref":
                    guard case .string(let reference) = member.value, target(of: reference) != nil else { return false }
                case "enum", "const", "examples", "default":
                    continue  // values, not schemas
                default:
                    if !isPortable(member.value) { return false }
                }
            }
            return true
        case .array(let elements):
            return elements.allSatisfy(isPortable)
        default:
            return true
        }
    }

    // MARK: Structure

    /// A shape that includes every value `schema` accepts, with the parts the steps can use:
    /// kinds, properties, `required`, `items`. Constraints it does not model are left out
    /// (which only loosens it); property and item schemas are kept whole as `.schema` when
    /// they are portable, and become `.any` when they are not.
    package func structure(of schema: JSON) -> Shape {
        structure(of: schema, depth: 0)
    }

    private static let maxDepth = 16

    private func structure(of schema: JSON, depth: Int) -> Shape {
        guard depth < Self.maxDepth else { return .any }
        guard case .object(let object) = schema else {
            if case .bool(false) = schema { return .never }
            return .any
        }
        var parts: [Shape] = []
        if case .string(let reference)? = object["$ref"] {
            if let target = target(of: reference), let root = schemas[target.type],
                let found = root[JSONPointer(target.pointer) ?? JSONPointer()]
            {
                parts.append(structure(of: found, depth: depth + 1))
            }
        }
        if let constant = object["const"] {
            parts.append(.constant(constant))
        } else if case .array(let values)? = object["enum"] {
            parts.append(.union(values.map(Shape.constant)))
        }
        if case .array(let all)? = object["allOf"] {
            parts += all.map { structure(of: $0, depth: depth + 1) }
        }
        for key in ["anyOf", "oneOf"] {
            if case .array(let alternatives)? = object[key] {
                parts.append(.union(alternatives.map { structure(of: $0, depth: depth + 1) }))
            }
        }
        if let kinds = typeNames(object["type"]) {
            var alternatives: [Shape] = []
            var scalars: ScalarKinds = []
            for kind in kinds {
                switch kind {
                case "null": scalars.insert(.null)
                case "boolean": scalars.insert(.boolean)
                case "integer": scalars.insert(.integer)
                case "number": scalars.formUnion(.number)
                case "string": scalars.insert(.string)
                case "array":
                    // With `prefixItems`, `items` describes only the elements after the prefix.
                    let items = object["prefixItems"] == nil ? object["items"].map(part) ?? .any : .any
                    alternatives.append(.array(items))
                case "object":
                    var shape = ObjectShape()
                    if case .object(let properties)? = object["properties"] {
                        shape.properties = properties.members.map { ($0.key, part($0.value)) }
                    }
                    if case .array(let names)? = object["required"] {
                        shape.required = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
                    }
                    alternatives.append(.object(shape))
                default:
                    break
                }
            }
            if !scalars.isEmpty { alternatives.append(.scalars(scalars)) }
            parts.append(.union(alternatives))
        }
        return .intersection(parts)
    }

    /// A subschema as the shape of a member or element.
    private func part(_ schema: JSON) -> Shape {
        if case .bool(let flag) = schema { return flag ? .any : .never }
        return isPortable(schema) ? .schema(schema) : .any
    }

    private func typeNames(_ value: JSON?) -> [String]? {
        switch value {
        case .string(let name)?: return [name]
        case .array(let names)?: return names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        default: return nil
        }
    }
}
