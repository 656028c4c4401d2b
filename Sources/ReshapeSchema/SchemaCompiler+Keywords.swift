import ReshapeJSON

extension SchemaCompiler {
    /// Compiles an object schema's keywords into `node`. Unknown keywords are ignored (they are
    /// annotations); known ones with a wrong value are schema errors.
    func compileKeywords(_ object: JSONObject, into node: SchemaNode, at location: Location,
                         scope: Scope) throws(SchemaError) {
        var compiled: [CompiledKeyword] = []
        var last: [CompiledKeyword] = []
        let document = location.document
        let vocab = scope.vocabularies

        func pointer(_ keyword: String) -> String { location.pointer + "/" + JSONPointer.escape(keyword) }
        func add(_ name: String, _ keyword: Keyword) {
            compiled.append(CompiledKeyword(keyword: keyword, name: name, location: display(pointer(name), document)))
        }
        func bad(_ keyword: String, _ expectation: String) -> SchemaError {
            error("\(keyword) must be \(expectation)", pointer(keyword), document)
        }
        func subschema(_ path: String) throws(SchemaError) -> SchemaNode {
            try self.node(at: Location(document: document, pointer: path))
        }
        func single(_ keyword: String) throws(SchemaError) -> SchemaNode? {
            guard object[keyword] != nil else { return nil }
            return try subschema(pointer(keyword))
        }
        func list(_ keyword: String, _ value: JSON) throws(SchemaError) -> [SchemaNode] {
            guard case .array(let elements) = value, !elements.isEmpty else { throw bad(keyword, "a non-empty array of schemas") }
            var result: [SchemaNode] = []
            for i in elements.indices { result.append(try subschema(pointer(keyword) + "/\(i)")) }
            return result
        }
        func map(_ keyword: String, _ value: JSON) throws(SchemaError) -> [(String, SchemaNode)] {
            guard case .object(let members) = value else { throw bad(keyword, "an object of schemas") }
            var result: [(String, SchemaNode)] = []
            for member in members.members {
                result.append((member.key, try subschema(pointer(keyword) + "/" + JSONPointer.escape(member.key))))
            }
            return result
        }
        func count(_ keyword: String, _ value: JSON) throws(SchemaError) -> Int {
            guard case .number(let n) = value, n.isInteger, !(n < JSONNumber(0)) else {
                throw bad(keyword, "a non-negative integer")
            }
            return n.intValue ?? Int.max
        }
        func number(_ keyword: String, _ value: JSON) throws(SchemaError) -> JSONNumber {
            guard case .number(let n) = value else { throw bad(keyword, "a number") }
            return n
        }
        func regex(_ keyword: String, _ source: String, _ at: String) throws(SchemaError) -> CompiledPattern {
            do { return try CompiledPattern(source) } catch {
                throw self.error("\(keyword) /\(source)/ is not a valid regular expression", at, document)
            }
        }
        func strings(_ keyword: String, _ value: JSON) throws(SchemaError) -> [String] {
            guard case .array(let elements) = value else { throw bad(keyword, "an array of strings") }
            var result: [String] = []
            for element in elements {
                guard case .string(let s) = element else { throw bad(keyword, "an array of strings") }
                result.append(s)
            }
            return result
        }

        for member in object.members {
            let value = member.value
            let key = member.key
            switch key {
            // Core.
            case "$ref":
                guard case .string(let reference) = value else { throw bad(key, "a string") }
                add(key, .ref(try self.node(at: try resolve(reference, from: location, keywordPointer: pointer(key)))))
            case "$dynamicRef":
                guard case .string(let reference) = value else { throw bad(key, "a string") }
                let target = try resolve(reference, from: location, keywordPointer: pointer(key))
                let fragment = URIReference(reference).fragment ?? ""
                let dynamic = !fragment.isEmpty && !fragment.hasPrefix("/") && hasDynamicAnchor(fragment, at: target)
                if dynamic { dynamicTable.isUsed = true }
                add(key, .dynamicRef(try self.node(at: target), anchor: dynamic ? fragment : nil))

            // Applicator.
            case "allOf" where vocab.applicator: add(key, .allOf(try list(key, value)))
            case "anyOf" where vocab.applicator: add(key, .anyOf(try list(key, value)))
            case "oneOf" where vocab.applicator: add(key, .oneOf(try list(key, value)))
            case "not" where vocab.applicator: add(key, .not(try subschema(pointer(key))))
            case "if" where vocab.applicator:
                let condition = try subschema(pointer(key))
                let then = try single("then"), otherwise = try single("else")
                // Kept even without then/else: its annotations still count for unevaluated*.
                add(key, .conditional(if: condition, then: then, else: otherwise))
            case "prefixItems" where vocab.applicator: add(key, .prefixItems(try list(key, value)))
            case "items" where vocab.applicator:
                var start = 0
                if case .array(let prefix)? = object["prefixItems"] { start = prefix.count }
                add(key, .items(try subschema(pointer(key)), start: start))
            case "contains" where vocab.applicator:
                let target = try subschema(pointer(key))
                var minimum = 1, maximum: Int?
                if vocab.validation, let v = object["minContains"] { minimum = try count("minContains", v) }
                if vocab.validation, let v = object["maxContains"] { maximum = try count("maxContains", v) }
                add(key, .contains(target, min: minimum, max: maximum))
            case "properties" where vocab.applicator:
                let list = try map(key, value)
                add(key, .properties(list, table: list.count > 12 ? Dictionary(list, uniquingKeysWith: { a, _ in a }) : nil))
            case "patternProperties" where vocab.applicator:
                guard case .object(let members) = value else { throw bad(key, "an object of schemas") }
                var patterns: [(CompiledPattern, SchemaNode)] = []
                for entry in members.members {
                    let at = pointer(key) + "/" + JSONPointer.escape(entry.key)
                    patterns.append((try regex(key, entry.key, at), try subschema(at)))
                }
                add(key, .patternProperties(patterns))
            case "additionalProperties" where vocab.applicator:
                var named = Set<String>()
                if case .object(let props)? = object["properties"] { named = Set(props.keys) }
                var patterns: [CompiledPattern] = []
                if case .object(let props)? = object["patternProperties"] {
                    for entry in props.members {
                        patterns.append(try regex("patternProperties", entry.key,
                                                  pointer("patternProperties") + "/" + JSONPointer.escape(entry.key)))
                    }
                }
                add(key, .additionalProperties(try subschema(pointer(key)), named: named, patterns: patterns))
            case "propertyNames" where vocab.applicator: add(key, .propertyNames(try subschema(pointer(key))))
            case "dependentSchemas" where vocab.applicator: add(key, .dependentSchemas(try map(key, value)))

            // Unevaluated: checked after everything else in the schema.
            case "unevaluatedItems" where vocab.unevaluated, "unevaluatedProperties" where vocab.unevaluated:
                let target = try subschema(pointer(key))
                last.append(CompiledKeyword(keyword: key == "unevaluatedItems" ? .unevaluatedItems(target)
                                                                               : .unevaluatedProperties(target),
                                            name: key, location: display(pointer(key), document)))
                node.tracksEvaluated = true

            // Validation.
            case "type" where vocab.validation:
                var mask = TypeMask()
                let names: [JSON]
                if case .array(let list) = value { names = list } else { names = [value] }
                for name in names {
                    guard case .string(let s) = name, let bit = TypeMask.named(s) else { throw bad(key, "a type name or an array of them") }
                    mask.insert(bit)
                }
                add(key, .type(mask))
            case "const" where vocab.validation: add(key, .const(value))
            case "enum" where vocab.validation:
                guard case .array(let values) = value else { throw bad(key, "an array") }
                add(key, .enumeration(values))
            case "minimum" where vocab.validation: add(key, .minimum(NumberBound(try number(key, value)), exclusive: false))
            case "exclusiveMinimum" where vocab.validation: add(key, .minimum(NumberBound(try number(key, value)), exclusive: true))
            case "maximum" where vocab.validation: add(key, .maximum(NumberBound(try number(key, value)), exclusive: false))
            case "exclusiveMaximum" where vocab.validation: add(key, .maximum(NumberBound(try number(key, value)), exclusive: true))
            case "multipleOf" where vocab.validation:
                let divisor = try number(key, value)
                guard JSONNumber(0) < divisor else { throw bad(key, "a number greater than 0") }
                add(key, .multipleOf(divisor))
            case "minLength" where vocab.validation: add(key, .minLength(try count(key, value)))
            case "maxLength" where vocab.validation: add(key, .maxLength(try count(key, value)))
            case "pattern" where vocab.validation:
                guard case .string(let source) = value else { throw bad(key, "a string") }
                add(key, .pattern(try regex(key, source, pointer(key))))
            case "minItems" where vocab.validation: add(key, .minItems(try count(key, value)))
            case "maxItems" where vocab.validation: add(key, .maxItems(try count(key, value)))
            case "uniqueItems" where vocab.validation:
                guard case .bool(let on) = value else { throw bad(key, "a boolean") }
                if on { add(key, .uniqueItems) }
            case "minProperties" where vocab.validation: add(key, .minProperties(try count(key, value)))
            case "maxProperties" where vocab.validation: add(key, .maxProperties(try count(key, value)))
            case "required" where vocab.validation: add(key, .required(try strings(key, value)))
            case "dependentRequired" where vocab.validation:
                guard case .object(let members) = value else { throw bad(key, "an object of string arrays") }
                var dependencies: [(String, [String])] = []
                for entry in members.members { dependencies.append((entry.key, try strings(key, entry.value))) }
                add(key, .dependentRequired(dependencies))

            // Format: an annotation unless assertion is on for this schema.
            case "format":
                guard case .string(let name) = value else { throw bad(key, "a string") }
                if scope.assertFormat || options.assertFormat, let check = Formats.check(named: name) {
                    add(key, .format(name, check))
                }
            default:
                continue
            }
        }
        node.keywords = compiled + last
    }
}
