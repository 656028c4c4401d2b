import ReshapeJSON

extension SchemaCompiler {
    /// Compiles an object schema's keywords into `node`. Unknown keywords are ignored (they are
    /// annotations); known ones with a wrong value are schema errors.
    func compileKeywords(
        _ object: JSONObject, into node: SchemaNode, at location: Location,
        scope: Scope
    ) throws(SchemaError) {
        var compiled: [KeywordCheck] = []
        var last: [KeywordCheck] = []
        let document = location.document
        let vocab = scope.vocabularies

        func pointer(_ keyword: String) -> String { location.pointer + "/" + JSONPointer.escape(keyword) }
        func site(_ name: String) -> KeywordSite { KeywordSite(name: name, location: display(pointer(name), document)) }
        func add(_ keyword: KeywordCheck) { compiled.append(keyword) }
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
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw bad(keyword, "a non-empty array of schemas")
            }
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
                add(
                    RefKeyword(
                        try self.node(at: try resolve(reference, from: location, keywordPointer: pointer(key))),
                        site(key)))
            case "$dynamicRef":
                guard case .string(let reference) = value else { throw bad(key, "a string") }
                let target = try resolve(reference, from: location, keywordPointer: pointer(key))
                let fragment = URIReference(reference).fragment ?? ""
                let dynamic = !fragment.isEmpty && !fragment.hasPrefix("/") && hasDynamicAnchor(fragment, at: target)
                if dynamic { dynamicTable.isUsed = true }
                add(DynamicRefKeyword(try self.node(at: target), anchor: dynamic ? fragment : nil, site(key)))

            // Applicator.
            case "allOf" where vocab.applicator: add(AllOfKeyword(try list(key, value), site(key)))
            case "anyOf" where vocab.applicator: add(AnyOfKeyword(try list(key, value), site(key)))
            case "oneOf" where vocab.applicator: add(OneOfKeyword(try list(key, value), site(key)))
            case "not" where vocab.applicator: add(NotKeyword(try subschema(pointer(key)), site(key)))
            case "if" where vocab.applicator:
                let condition = try subschema(pointer(key))
                let then = try single("then")
                let otherwise = try single("else")
                // Kept even without then/else: its annotations still count for unevaluated*.
                add(ConditionalKeyword(if: condition, then: then, else: otherwise, site(key)))
            case "prefixItems" where vocab.applicator: add(PrefixItemsKeyword(try list(key, value), site(key)))
            case "items" where vocab.applicator:
                var start = 0
                if case .array(let prefix)? = object["prefixItems"] { start = prefix.count }
                add(ItemsKeyword(try subschema(pointer(key)), start: start, site(key)))
            case "contains" where vocab.applicator:
                let target = try subschema(pointer(key))
                var minimum = 1
                var maximum: Int?
                if vocab.validation, let v = object["minContains"] { minimum = try count("minContains", v) }
                if vocab.validation, let v = object["maxContains"] { maximum = try count("maxContains", v) }
                add(ContainsKeyword(target, min: minimum, max: maximum, site(key)))
            case "properties" where vocab.applicator:
                add(PropertiesKeyword(try map(key, value), site(key), perfect: options.memberTables))
            case "patternProperties" where vocab.applicator:
                guard case .object(let members) = value else { throw bad(key, "an object of schemas") }
                var patterns: [(CompiledPattern, SchemaNode)] = []
                for entry in members.members {
                    let at = pointer(key) + "/" + JSONPointer.escape(entry.key)
                    patterns.append((try regex(key, entry.key, at), try subschema(at)))
                }
                add(PatternPropertiesKeyword(patterns, site(key)))
            case "additionalProperties" where vocab.applicator:
                var named = Set<String>()
                if case .object(let props)? = object["properties"] { named = Set(props.keys) }
                var patterns: [CompiledPattern] = []
                if case .object(let props)? = object["patternProperties"] {
                    for entry in props.members {
                        patterns.append(
                            try regex(
                                "patternProperties", entry.key,
                                pointer("patternProperties") + "/" + JSONPointer.escape(entry.key)))
                    }
                }
                add(
                    AdditionalPropertiesKeyword(
                        try subschema(pointer(key)), named: named, patterns: patterns, site(key),
                        perfect: options.memberTables))
            case "propertyNames" where vocab.applicator:
                add(PropertyNamesKeyword(try subschema(pointer(key)), site(key)))
            case "dependentSchemas" where vocab.applicator: add(DependentSchemasKeyword(try map(key, value), site(key)))

            // Unevaluated: checked after everything else in the schema.
            case "unevaluatedItems" where vocab.unevaluated, "unevaluatedProperties" where vocab.unevaluated:
                let target = try subschema(pointer(key))
                last.append(
                    key == "unevaluatedItems"
                        ? UnevaluatedItemsKeyword(target, site(key))
                        : UnevaluatedPropertiesKeyword(target, site(key)))
                node.tracksEvaluated = true

            // Validation.
            case "type" where vocab.validation:
                var mask = TypeMask()
                let names: [JSON]
                if case .array(let list) = value { names = list } else { names = [value] }
                for name in names {
                    guard case .string(let s) = name, let bit = TypeMask.named(s) else {
                        throw bad(key, "a type name or an array of them")
                    }
                    mask.insert(bit)
                }
                add(TypeKeyword(mask, site(key)))
            case "const" where vocab.validation: add(ConstKeyword(value, site(key)))
            case "enum" where vocab.validation:
                guard case .array(let values) = value else { throw bad(key, "an array") }
                add(EnumKeyword(values, site(key)))
            case "minimum" where vocab.validation:
                add(BoundKeyword(NumberBound(try number(key, value)), upper: false, exclusive: false, site(key)))
            case "exclusiveMinimum" where vocab.validation:
                add(BoundKeyword(NumberBound(try number(key, value)), upper: false, exclusive: true, site(key)))
            case "maximum" where vocab.validation:
                add(BoundKeyword(NumberBound(try number(key, value)), upper: true, exclusive: false, site(key)))
            case "exclusiveMaximum" where vocab.validation:
                add(BoundKeyword(NumberBound(try number(key, value)), upper: true, exclusive: true, site(key)))
            case "multipleOf" where vocab.validation:
                let divisor = try number(key, value)
                guard JSONNumber(0) < divisor else { throw bad(key, "a number greater than 0") }
                add(MultipleOfKeyword(divisor, site(key)))
            case "minLength" where vocab.validation: add(LengthKeyword(try count(key, value), upper: false, site(key)))
            case "maxLength" where vocab.validation: add(LengthKeyword(try count(key, value), upper: true, site(key)))
            case "pattern" where vocab.validation:
                guard case .string(let source) = value else { throw bad(key, "a string") }
                add(PatternKeyword(try regex(key, source, pointer(key)), site(key)))
            case "minItems" where vocab.validation:
                add(ItemCountKeyword(try count(key, value), upper: false, site(key)))
            case "maxItems" where vocab.validation: add(ItemCountKeyword(try count(key, value), upper: true, site(key)))
            case "uniqueItems" where vocab.validation:
                guard case .bool(let on) = value else { throw bad(key, "a boolean") }
                if on { add(UniqueItemsKeyword(site(key))) }
            case "minProperties" where vocab.validation:
                add(PropertyCountKeyword(try count(key, value), upper: false, site(key)))
            case "maxProperties" where vocab.validation:
                add(PropertyCountKeyword(try count(key, value), upper: true, site(key)))
            case "required" where vocab.validation: add(RequiredKeyword(try strings(key, value), site(key)))
            case "dependentRequired" where vocab.validation:
                guard case .object(let members) = value else { throw bad(key, "an object of string arrays") }
                var dependencies: [(String, [String])] = []
                for entry in members.members { dependencies.append((entry.key, try strings(key, entry.value))) }
                add(DependentRequiredKeyword(dependencies, site(key)))

            // Format: an annotation unless assertion is on for this schema.
            case "format":
                guard case .string(let name) = value else { throw bad(key, "a string") }
                if scope.assertFormat || options.assertFormat, let check = Formats.check(named: name) {
                    add(FormatKeyword(name, check, site(key)))
                }
            default:
                continue
            }
        }
        node.fusesAdditional = options.memberTables
        node.keywords = compiled + last
    }
}
