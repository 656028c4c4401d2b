import ReshapeJSON
import ReshapeRules

/// `reshape infer`: a rule file drafted from sample upstream answers — the collection steps
/// the samples call for, the element type they show, a `validate` step and the samples as
/// offline examples whose responses come from running the drafted route itself.
package struct RuleDraft {
    package struct Options: Sendable {
        /// The element type's name; by default the route's name in the singular.
        package var typeName: String?
        /// The upstream's name; `api` by default. A placeholder declaration is always written.
        package var upstream: String?
        /// The upstream path; by default the request path plus `.json` (Firebase's REST form).
        package var path: String?
        /// `METHOD /path`; by default `GET /` plus the sample file's name.
        package var request: String?
        /// The field that receives each record's key; see `keyName`.
        package var key: String?
        /// Propose `enum` for strings with a few repeated values.
        package var enums = false
        /// Read a small minority of odd records in a collection as corrupt (`Outliers`):
        /// `required`, `minLength: 1`, `minimum: 0`, the majority's type, and a `coerce` step
        /// for integers sent as strings, each with a comment saying what it came from.
        package var outliers = true
        /// The first sample's file name, for the default names.
        package var sampleName = "sample.json"
        package init() {}
    }

    /// Why no draft could be made.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package let options: Options
    package let samples: [JSON]

    package init(samples: [JSON], options: Options) {
        self.samples = samples
        self.options = options
    }

    /// The rule file, as YAML.
    package func yaml() throws(Failure) -> String { try build().text }

    /// The drafted file, as YAML text and as the types it declares.
    package struct Output {
        package var text: String
        /// The `types:` mapping, by name.
        package var types: JSON
    }

    package func build() throws(Failure) -> Output {
        let names = try Names(options)
        let layout = RecordLayout.classify(samples)
        let shaping = try collectionSteps(layout, names)
        let inferred = try elementTypes(layout, shaping, names)
        let types = inferred.types
        var transform = shaping.steps
        let collection = layout != .single
        var comments = inferred.notes
        if !inferred.coercions.isEmpty {
            // Before validate, so the fixed records pass it; `keep` leaves what does not
            // convert for validate to drop (it is not of the majority's type).
            var fields = inferred.coercions.map { JSONMember(key: $0.member, value: .string($0.target)) }
            fields.append(JSONMember(key: "invalid", value: .string("keep")))
            comments[["routes", "0", "transform", String(transform.count), "coerce"]] =
                inferred.coercions.map { "\($0.member): \($0.note)" }.joined(separator: "; ")
            transform.append(step("coerce", .object(JSONObject(fields))))
        }
        transform.append(
            .object(
                JSONObject([
                    JSONMember(
                        key: "validate",
                        value: .object(
                            JSONObject([
                                JSONMember(key: "type", value: .string(shaping.validatedType ?? names.type)),
                                // One bad record should not cost the client the whole list (the drop is counted and
                                // logged); a single value that is bad has nothing to fall back to, so it fails.
                                JSONMember(key: "invalid", value: .string(collection ? "drop" : "fail")),
                            ])))
                ])))
        if collection { transform.append(.object(JSONObject([JSONMember(key: "wrap", value: .string("objects"))]))) }

        var route = JSONObject([
            JSONMember(key: "name", value: .string(names.route)),
            JSONMember(key: "request", value: .string("\(names.method) \(names.requestPath)")),
            JSONMember(key: "upstream", value: .string(names.upstream)),
            JSONMember(key: "path", value: .string(names.upstreamPath)),
            JSONMember(key: "transform", value: .array(transform)),
        ])
        let upstreams = JSON.object(
            JSONObject([
                JSONMember(
                    key: names.upstream,
                    value: .object(
                        JSONObject([
                            JSONMember(
                                key: "url",
                                value: .string("${\(DraftNames.urlVariable(names.upstream)):-http://127.0.0.1:8081}"))
                        ])))
            ]))
        let withoutExamples = render(upstreams, types, route, comments)
        route["examples"] = .array(try examples(withoutExamples, names))
        return Output(text: render(upstreams, types, route, comments), types: types)
    }

    private func render(_ upstreams: JSON, _ types: JSON, _ route: JSONObject, _ comments: [[String]: String]) -> String
    {
        let sources = samples.count == 1 ? "a sample" : "\(samples.count) samples"
        let outliers =
            comments.isEmpty
            ? ""
            : """
            #
            # A few records break a pattern the others follow; the constraints commented below
            # treat them as corrupt, so validate drops them (see the example's `dropped`). Delete a
            # constraint to keep such records, or draft again with --no-outliers.

            """
        return """
            # Drafted by `reshape infer` from \(sources). A sample shows what is there, not what is
            # allowed: check the names, then tighten the types (minLength, minimum, enum, ...).
            \(outliers)
            # A placeholder, so that this file loads on its own: set \(DraftNames.urlVariable(upstreamName)), or delete
            # this block when your rules directory already declares this upstream.

            """ + YAMLWriter.write(.object(JSONObject([JSONMember(key: "upstreams", value: upstreams)])))
                + "\n"
                + YAMLWriter.write(.object(JSONObject([JSONMember(key: "types", value: types)])), comments: comments)
                + "\n"
                + YAMLWriter.write(
                    .object(JSONObject([JSONMember(key: "routes", value: .array([.object(route)]))])),
                    comments: comments)
    }

    private var upstreamName: String { options.upstream ?? "api" }

    // MARK: - Collection steps

    struct Shaping {
        var steps: [JSON] = []
        /// The type `validate` checks when it is not the element type (a nested collection's groups).
        var validatedType: String?
        /// For a nested collection: the member holding each group's records.
        var member: String?
        var key: String?
    }

    private func collectionSteps(_ layout: RecordLayout, _ names: Names) throws(Failure) -> Shaping {
        var shaping = Shaping()
        switch layout {
        case .single:
            if samples.contains(where: { if case .null = $0 { true } else { false } }) {
                // Firebase answers `null` for a missing record: that is a 404, not a shape error.
                shaping.steps.append(step("require", .string("present")))
            }
        case .array:
            break
        case .keyed(let order, nil):
            let records = samples.flatMap(KeyedCollection.records)
            let key =
                options.key ?? DraftNames.unused(["objectId", "id", "key", "_key"], among: Self.fields(of: records))
            shaping.key = key
            shaping.steps.append(step("keyed-to-array", ["key": .string(key), "order": .string(order)]))
        case .keyed(let order, let innerOrder?):
            let groups = samples.flatMap(KeyedCollection.records)
            let records = groups.flatMap(KeyedCollection.records)
            let innerKey = DraftNames.unused(
                [DraftNames.lowerCamel(names.type) + "Id", "objectId", "id"], among: Self.fields(of: records))
            let member = DraftNames.plural(DraftNames.lowerCamel(names.type))
            let key = options.key ?? DraftNames.unused(["objectId", "id", "key"], among: [member])
            shaping.key = key
            shaping.member = member
            shaping.validatedType = names.type + "Group"
            shaping.steps.append(
                step(
                    "at",
                    [
                        "path": .string("/*"),
                        "do": .array([
                            step("keyed-to-array", ["key": .string(innerKey), "order": .string(innerOrder)])
                        ]),
                    ]))
            shaping.steps.append(
                step("keyed-to-array", ["key": .string(key), "value": .string(member), "order": .string(order)]))
        }
        return shaping
    }

    private static func fields(of records: [JSON]) -> Set<String> {
        records.reduce(into: Set<String>()) { fields, record in fields.formUnion(record.record?.keys ?? []) }
    }

    private func step(_ name: String, _ argument: JSON) -> JSON {
        .object(JSONObject([JSONMember(key: name, value: argument)]))
    }

    private func step(_ name: String, _ options: KeyValuePairs<String, JSON>) -> JSON {
        step(name, .object(JSONObject(options)))
    }

    // MARK: - Types

    /// The element type (and a nested collection's group type), inferred from the records as
    /// the collection steps give them: the key field is then part of the type like any field.
    struct Inferred {
        var types: JSON
        /// The outlier heuristics' comments, by full YAML path (`types`, name, ...).
        var notes: [[String]: String] = [:]
        var coercions: [(member: String, target: String, note: String)] = []
    }

    private func elementTypes(_ layout: RecordLayout, _ shaping: Shaping, _ names: Names) throws(Failure) -> Inferred {
        let shape = ValueShape()
        let pipeline: Pipeline
        do {
            pipeline = try OperationCatalog.compile(steps: .array(shaping.steps), context: OperationCompileContext())
        } catch {
            throw Failure(description: "reshape infer: the drafted steps do not compile (\(error)); this is a bug")
        }
        for sample in samples {
            if layout == .single {
                if case .null = sample { continue }
                shape.add(sample)
                continue
            }
            guard case .array(let elements)? = try? pipeline.run(sample).value else { continue }
            for element in elements { shape.add(element) }
        }
        // The outlier heuristics are for collections: one value has no majority to go by.
        let heuristics = options.outliers && layout != .single
        var findings: OutlierFindings? = heuristics ? OutlierFindings() : nil
        var schema = shape.schema(enums: options.enums, findings: &findings, coercible: shaping.member == nil)
        if shape.count == 0, let key = shaping.key ?? (layout == .array ? nil : "objectId") {
            // Only empty collections: all that is known is that records will have their key.
            schema = .object(
                JSONObject([
                    "type": .string("object"), "required": .array([.string(key)]),
                    "properties": .object(
                        JSONObject([JSONMember(key: key, value: .object(JSONObject(["type": .string("string")])))])),
                ]))
        }
        guard let member = shaping.member, let group = shaping.validatedType else {
            var inferred = Inferred(types: .object(JSONObject([JSONMember(key: names.type, value: schema)])))
            inferred.add(findings, under: ["types", names.type])
            inferred.coercions = findings?.coercions ?? []
            return inferred
        }
        // The group type refers to the element type instead of repeating it (and its notes).
        findings?.notes.removeAll { $0.path.starts(with: ["properties", member]) }
        var elementFindings: OutlierFindings? = heuristics ? OutlierFindings() : nil
        let element =
            shape.property(member)?.items?.schema(enums: options.enums, findings: &elementFindings, coercible: false)
            ?? .object(JSONObject(["type": .string("object")]))
        if case .object(var groupSchema) = schema, case .object(var properties)? = groupSchema["properties"] {
            properties[member] = .object(
                JSONObject(["type": .string("array"), "items": .object(JSONObject(["$ref": .string(names.type)]))]))
            groupSchema["properties"] = .object(properties)
            schema = .object(groupSchema)
        }
        var inferred = Inferred(
            types: .object(
                JSONObject([JSONMember(key: names.type, value: element), JSONMember(key: group, value: schema)])))
        inferred.add(elementFindings, under: ["types", names.type])
        inferred.add(findings, under: ["types", group])
        return inferred
    }

    // MARK: - Examples

    /// One example per sample, its response (or error) what the drafted route answers:
    /// right by construction, so `reshape test` passes on the file as written.
    private func examples(_ text: String, _ names: Names) throws(Failure) -> [JSON] {
        let ruleSet: RuleSet
        switch RuleLoader.load(files: [(name: "inferred.yaml", text: text)], environment: [:]) {
        case .success(let loaded): ruleSet = loaded
        case .failure(let problems):
            throw Failure(
                description:
                    "reshape infer: the drafted rules do not load:\n\(problems.diagnostics.map(\.description).joined(separator: "\n"))"
            )
        }
        let route = ruleSet.routes[0]
        let parameters = Dictionary(uniqueKeysWithValues: route.path.parameterNames.map { ($0, "sample") })
        var examples: [JSON] = []
        for sample in samples {
            var example = JSONObject()
            if !parameters.isEmpty {
                example["params"] = .object(
                    JSONObject(parameters.keys.sorted().map { JSONMember(key: $0, value: .string("sample")) }))
            }
            example["upstream"] = sample
            do throws(PipelineError) {
                let output = try OfflineRun.respond(
                    route, fetched: .single(OfflineRun.tape(sample)), parameters: parameters)
                example["response"] = output.value
                if !output.dropped.isEmpty { example["dropped"] = .number(JSONNumber(output.dropped.count)) }
            } catch {
                example["error"] = .string(error.code)
            }
            examples.append(.object(example))
        }
        return examples
    }

    // MARK: - Names

    struct Names {
        var route: String
        var type: String
        var method: String
        var requestPath: String
        var upstream: String
        var upstreamPath: String

        init(_ options: Options) throws(Failure) {
            if let request = options.request {
                let parts = request.split(separator: " ", omittingEmptySubsequences: true)
                guard parts.count == 2, parts[1].hasPrefix("/") else {
                    throw Failure(
                        description:
                            "reshape infer: --request takes \"METHOD /path\", e.g. \"GET /users\" (got '\(request)')")
                }
                method = parts[0].uppercased()
                requestPath = String(parts[1])
                route = DraftNames.routeName(
                    String(requestPath.split(separator: "/").filter { !$0.hasPrefix("{") }.joined(separator: "-")))
            } else {
                let base =
                    options.path.map { String($0.split(separator: "/").last { !$0.hasPrefix("{") } ?? "") }
                    ?? String(options.sampleName.split(separator: "/").last ?? "")
                let stem = base.hasSuffix(".json") ? String(base.dropLast(5)) : base
                route = DraftNames.routeName(stem)
                method = "GET"
                requestPath = "/" + route
            }
            type = options.typeName ?? DraftNames.typeName(forRoute: route)
            upstream = options.upstream ?? "api"
            upstreamPath = options.path ?? (requestPath == "/" ? "/.json" : requestPath + ".json")
        }
    }
}

extension RuleDraft.Inferred {
    mutating func add(_ findings: OutlierFindings?, under prefix: [String]) {
        for note in findings?.notes ?? [] {
            let path = prefix + note.path
            notes[path] = notes[path].map { $0 + "; " + note.text } ?? note.text
        }
    }
}
