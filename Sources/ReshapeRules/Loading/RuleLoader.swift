import ReshapeJSON
import ReshapeSchema

/// Turns rule files into a checked, immutable `RuleSet`, or into every problem found, each
/// with `file:line:column`. Loading is all-or-nothing: a rule set with one problem is refused.
public enum RuleLoader {
    /// Loads a directory of `.yaml`, `.yml` and `.json` files (not recursive), or one file.
    public static func load(path: String, environment: [String: String]) -> Result<RuleSet, RuleDiagnostics> {
        do {
            return load(files: try RuleFileReader.read(path: path), environment: environment)
        } catch {
            return .failure(error)
        }
    }

    /// Loads rule files given as (file name, text) pairs; the name's extension picks YAML or JSON.
    public static func load(files: [(name: String, text: String)], environment: [String: String]) -> Result<RuleSet, RuleDiagnostics> {
        var builder = RuleSetBuilder(environment: environment)
        return builder.build(files)
    }
}

/// One load's working state: the documents read so far and the problems found.
struct RuleSetBuilder {
    let expander: EnvironmentExpander
    var problems: [RuleDiagnostic] = []

    init(environment: [String: String]) {
        expander = EnvironmentExpander(environment: environment)
    }

    /// A named entry (upstream, type or route) and where it was written.
    struct Entry {
        let name: String
        let value: JSON
        let document: SourceDocument
        let pointer: String
        var location: SourceLocation { document.location(of: pointer) }
    }

    mutating func build(_ files: [(name: String, text: String)]) -> Result<RuleSet, RuleDiagnostics> {
        var documents: [SourceDocument] = []
        for file in files {
            do {
                let isJSON = file.name.hasSuffix(".json")
                documents.append(isJSON ? try SourceDocument.parseJSON(file.text, file: file.name)
                                        : try SourceDocument.parseYAML(file.text, file: file.name))
            } catch {
                problems += error.diagnostics
            }
        }
        if files.isEmpty {
            problems.append(RuleDiagnostic(location: SourceLocation(file: "(rules)", line: 1, column: 1),
                                           message: "no rule files (.yaml, .yml or .json) found"))
        }

        var upstreamEntries: [Entry] = []
        var typeEntries: [Entry] = []
        var routeEntries: [Entry] = []
        for document in documents {
            guard case .object(let root) = document.root else {
                if case .null = document.root { continue }  // an empty file
                report(document, "", "a rule file must be a mapping with `upstreams`, `types` and/or `routes`")
                continue
            }
            for member in root.members {
                let pointer = JSONPointer.appending(key: member.key, to: "")
                switch member.key {
                case "upstreams": upstreamEntries += namedEntries(member.value, document, pointer, what: "upstreams")
                case "types": typeEntries += namedEntries(member.value, document, pointer, what: "types")
                case "routes":
                    guard case .array(let routes) = member.value else {
                        report(document, pointer, "`routes` must be a list")
                        continue
                    }
                    for (index, route) in routes.enumerated() {
                        let routePointer = JSONPointer.appending(index: index, to: pointer)
                        let name = route.objectValue?["name"]?.stringValue ?? ""
                        routeEntries.append(Entry(name: name, value: route, document: document, pointer: routePointer))
                    }
                default:
                    report(document, pointer, "unknown top-level key '\(member.key)' (expected upstreams, types or routes)")
                }
            }
        }
        checkUnique(upstreamEntries, what: "upstream")
        checkUnique(typeEntries, what: "type")
        checkUnique(routeEntries.filter { !$0.name.isEmpty }, what: "route")

        var upstreams: [String: Upstream] = [:]
        for entry in upstreamEntries where upstreams[entry.name] == nil {
            if let upstream = compileUpstream(entry) { upstreams[entry.name] = upstream }
        }
        let types = compileTypes(typeEntries)
        var routes: [Route] = []
        for entry in routeEntries {
            if let route = compileRoute(entry, upstreamNames: Set(upstreamEntries.map(\.name)), types: types) {
                routes.append(route)
            }
        }
        checkOverlappingRoutes(routes)

        if !problems.isEmpty { return .failure(RuleDiagnostics(problems)) }
        let digest = RuleDigest.of(files)
        return .success(RuleSet(upstreams: upstreams, routes: routes, digest: digest))
    }

    // MARK: - Entries

    private mutating func namedEntries(_ value: JSON, _ document: SourceDocument, _ pointer: String, what: String) -> [Entry] {
        guard case .object(let object) = value else {
            if case .null = value { return [] }
            report(document, pointer, "`\(what)` must be a mapping from names to definitions")
            return []
        }
        return object.members.map {
            Entry(name: $0.key, value: $0.value, document: document, pointer: JSONPointer.appending(key: $0.key, to: pointer))
        }
    }

    private mutating func checkUnique(_ entries: [Entry], what: String) {
        var first: [String: Entry] = [:]
        for entry in entries {
            if let earlier = first[entry.name] {
                problems.append(RuleDiagnostic(location: entry.location,
                                               message: "duplicate \(what) '\(entry.name)' (first defined at \(earlier.location))"))
            } else {
                first[entry.name] = entry
            }
        }
    }

    // MARK: - Types

    /// Compiles the types, reporting every faulty one: a type that fails is reported, stands in
    /// as `true` (so references to it still resolve) and the set is compiled again, so one bad
    /// type neither hides the next nor the routes that validate against the types.
    private mutating func compileTypes(_ entries: [Entry]) -> SchemaSet? {
        var seen: Set<String> = []
        let unique = entries.filter { seen.insert($0.name).inserted }
        var schemas = unique.map(\.value)
        for _ in 0...unique.count {
            do {
                return try SchemaSet(types: zip(unique, schemas).map { (name: $0.name, schema: $1) })
            } catch {
                let index = unique.firstIndex { $0.name == error.typeName }
                guard let entry = index.map({ unique[$0] }) ?? unique.first else { return nil }
                let inner = TypePointer.relative(error.schemaPointer, typeName: entry.name)
                problems.append(RuleDiagnostic(location: entry.document.location(of: entry.pointer + inner),
                                               message: "type '\(entry.name)': \(error.message)"))
                // An error no single type can be blamed for, or one that stays: stop here.
                guard let index, schemas[index] != .bool(true) else { return nil }
                schemas[index] = .bool(true)
            }
        }
        return nil
    }

    // MARK: - Routes

    private static let exampleKeys: Set<String> = ["upstream", "response", "params", "dropped", "error"]
    private static let routeKeys: Set<String> = ["name", "request", "upstream", "path", "forward-query", "transform", "examples"]

    private mutating func compileRoute(_ entry: Entry, upstreamNames: Set<String>, types: SchemaSet?) -> Route? {
        let document = entry.document
        guard case .object(let object) = entry.value else {
            report(document, entry.pointer, "a route must be a mapping with name, request, upstream, path and transform")
            return nil
        }
        var ok = reportUnknownKeys(in: object, allowed: Self.routeKeys, what: "route key", document, entry.pointer)
        func required(_ key: String) -> String? {
            guard let value = object[key] else {
                report(document, entry.pointer, "route\(entry.name.isEmpty ? "" : " '\(entry.name)'") is missing `\(key)`")
                return nil
            }
            guard let text = value.stringValue, !text.isEmpty else {
                report(document, entry.pointer + "/" + key, "`\(key)` must be a non-empty string")
                return nil
            }
            return text
        }
        let name = required("name")
        let request = required("request")
        let upstream = required("upstream")
        let path = required("path")

        var method = ""
        var requestTemplate: PathTemplate?
        if let request {
            let parts = request.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count != 2 || !parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }) {
                report(document, entry.pointer + "/request", "`request` must be 'METHOD /path', like 'GET /users/{id}' (found '\(request)')")
            } else {
                method = String(parts[0])
                do {
                    requestTemplate = try TemplateParser.requestPath(String(parts[1]))
                } catch {
                    report(document, entry.pointer + "/request", error.message)
                }
            }
        }
        if let upstream, !upstreamNames.contains(upstream) {
            report(document, entry.pointer + "/upstream",
                   "unknown upstream '\(upstream)'\(upstreamNames.isEmpty ? "" : " (defined: \(upstreamNames.sorted().joined(separator: ", ")))")")
            ok = false
        }
        var upstreamTemplate: PathTemplate?
        if let path {
            do {
                upstreamTemplate = try TemplateParser.upstreamPath(path)
            } catch {
                report(document, entry.pointer + "/path", error.message)
            }
        }
        let captures = Set(requestTemplate?.parameterNames ?? [])
        if let upstreamTemplate, requestTemplate != nil {
            for parameter in upstreamTemplate.parameterNames where !captures.contains(parameter) {
                report(document, entry.pointer + "/path",
                       "'{\(parameter)}' is not captured by the request template '\(requestTemplate!.description)'")
                ok = false
            }
        }
        var forwardQuery: [String] = []
        if let value = object["forward-query"] {
            if case .array(let names) = value, names.allSatisfy({ $0.stringValue != nil }) {
                forwardQuery = names.compactMap(\.stringValue)
            } else {
                report(document, entry.pointer + "/forward-query", "`forward-query` must be a list of query parameter names")
                ok = false
            }
        }
        var pipeline = Pipeline(steps: [])
        if let transform = object["transform"], types != nil || !Self.mentionsTypes(transform) {
            let context = OperationCompileContext(types: types, parameterNames: captures)
            do {
                pipeline = try OperationCatalog.compile(steps: transform, context: context)
            } catch {
                // Report every faulty step, not only the first one compile stopped at.
                let all = OperationCatalog.problems(in: transform, context: context)
                for problem in all.isEmpty ? [error] : all {
                    report(document, entry.pointer + "/transform" + problem.pointer, problem.message)
                }
                ok = false
            }
        } else if object["transform"] == nil {
            report(document, entry.pointer, "route\(name.map { " '\($0)'" } ?? "") has no `transform` (use `transform: []` to pass JSON through unchanged)")
            ok = false
        }
        let examples = compileExamples(object["examples"], document: document, pointer: entry.pointer + "/examples")
        guard ok, let name, let upstream, let requestTemplate, let upstreamTemplate, let examples else { return nil }
        return Route(name: name, method: method, path: requestTemplate, upstream: upstream, upstreamPath: upstreamTemplate,
                     forwardQuery: forwardQuery, pipeline: pipeline, location: entry.location, examples: examples)
    }

    /// A transform that uses `validate` cannot be compiled without the types; when the types
    /// failed, that failure is already reported, so the route's steps are not compiled again.
    private static func mentionsTypes(_ transform: JSON) -> Bool {
        transform.serializedString().contains("\"validate\"")
    }

    private mutating func compileExamples(_ value: JSON?, document: SourceDocument, pointer: String) -> [RouteExample]? {
        guard let value else { return [] }
        guard case .array(let items) = value else {
            report(document, pointer, "`examples` must be a list of {upstream, response} fixtures")
            return nil
        }
        var examples: [RouteExample] = []
        var ok = true
        for (index, item) in items.enumerated() {
            let itemPointer = JSONPointer.appending(index: index, to: pointer)
            guard case .object(let object) = item, let upstream = object["upstream"] else {
                report(document, itemPointer, "an example needs `upstream` (what the upstream sends) and `response` or `error`")
                ok = false
                continue
            }
            if !reportUnknownKeys(in: object, allowed: Self.exampleKeys, what: "example key", document, itemPointer) { ok = false }
            var parameters: [String: String] = [:]
            if let params = object["params"] {
                guard case .object(let pairs) = params else {
                    report(document, itemPointer + "/params", "`params` must map capture names to values")
                    ok = false
                    continue
                }
                for pair in pairs.members {
                    switch pair.value {
                    case .string(let text): parameters[pair.key] = text
                    case .number(let number): parameters[pair.key] = number.text
                    default:
                        report(document, itemPointer + "/params/" + JSONPointer.escape(pair.key), "a parameter value must be a string")
                        ok = false
                    }
                }
            }
            let dropped = object["dropped"].flatMap { value -> Int? in
                if case .number(let number) = value { return number.intValue }
                return nil
            }
            if object["dropped"] != nil && dropped == nil {
                report(document, itemPointer + "/dropped", "`dropped` must be a whole number")
                ok = false
            }
            let error = object["error"]?.stringValue
            if object["response"] == nil && error == nil {
                report(document, itemPointer, "an example needs `response` or `error`")
                ok = false
            }
            examples.append(RouteExample(upstream: upstream, response: object["response"], parameters: parameters,
                                         dropped: dropped, error: error, location: document.location(of: itemPointer)))
        }
        return ok ? examples : nil
    }

    private mutating func checkOverlappingRoutes(_ routes: [Route]) {
        var seen: [String: Route] = [:]
        for route in routes {
            // Captures match the same requests whatever they are called.
            let shape = route.method + " " + route.path.segments.map {
                if case .literal(let text) = $0 { return text } else { return "{}" }
            }.joined(separator: "/")
            if let earlier = seen[shape] {
                problems.append(RuleDiagnostic(location: route.location,
                                               message: "route '\(route.name)' answers the same requests as route '\(earlier.name)' (\(earlier.location))"))
            } else {
                seen[shape] = route
            }
        }
    }

    // MARK: - Reporting

    /// Reports every member of `object` not in `allowed`; false when there was one.
    mutating func reportUnknownKeys(in object: JSONObject, allowed: Set<String>, what: String,
                                    _ document: SourceDocument, _ pointer: String) -> Bool {
        var clean = true
        for member in object.members where !allowed.contains(member.key) {
            report(document, pointer + "/" + JSONPointer.escape(member.key),
                   "unknown \(what) '\(member.key)' (expected \(allowed.sorted().joined(separator: ", ")))")
            clean = false
        }
        return clean
    }

    mutating func report(_ document: SourceDocument, _ pointer: String, _ message: String) {
        problems.append(RuleDiagnostic(location: document.location(of: pointer), message: message))
    }
}

extension JSON {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }
}

/// Schema errors point into the document `{"types": {...}}` the schema set compiles; rule
/// diagnostics need the part inside one type.
enum TypePointer {
    static func relative(_ schemaPointer: String, typeName: String) -> String {
        let prefix = "/types/" + JSONPointer.escape(typeName)
        if schemaPointer.hasPrefix(prefix) { return String(schemaPointer.dropFirst(prefix.count)) }
        return schemaPointer.hasPrefix("/") ? schemaPointer : ""
    }
}
