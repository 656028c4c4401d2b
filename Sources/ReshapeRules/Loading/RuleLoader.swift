import ReshapeJSON
import ReshapeSchema

/// Turns rule files into a checked, immutable `RuleSet`, or into every problem found, each
/// with `file:line:column`. Loading is all-or-nothing: a rule set with one problem is refused.
package enum RuleLoader {
    /// Loads a directory of `.yaml`, `.yml` and `.json` files (not recursive), or one file.
    package static func load(path: String, environment: [String: String]) -> Result<RuleSet, RuleDiagnostics> {
        do {
            return load(files: try RuleFileReader.read(path: path), environment: environment)
        } catch {
            return .failure(error)
        }
    }

    /// Loads rule files given as (file name, text) pairs; the name's extension picks YAML or JSON.
    package static func load(files: [(name: String, text: String)], environment: [String: String]) -> Result<
        RuleSet, RuleDiagnostics
    > {
        var builder = RuleSetBuilder(environment: environment)
        return builder.build(files)
    }
}

/// One load's working state: the documents read so far and the problems found.
struct RuleSetBuilder {
    let expander: EnvironmentExpander
    var problems: [RuleDiagnostic] = []
    /// Allowed but suspicious; reported by `reshape check` without refusing the rules.
    var warnings: [RuleDiagnostic] = []
    /// The `limits:` policies compiled, and every name defined (a refused one too), for routes' `limit:`.
    var limitPolicies: [String: LimitPolicy] = [:]
    var limitNames: Set<String> = []

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
                documents.append(
                    isJSON
                        ? try SourceDocument.parseJSON(file.text, file: file.name)
                        : try SourceDocument.parseYAML(file.text, file: file.name))
            } catch {
                problems += error.diagnostics
            }
        }
        if files.isEmpty {
            problems.append(
                RuleDiagnostic(
                    location: SourceLocation(file: "(rules)", line: 1, column: 1),
                    message: "no rule files (.yaml, .yml or .json) found"))
        }

        var upstreamEntries: [Entry] = []
        var typeEntries: [Entry] = []
        var routeEntries: [Entry] = []
        var verifierEntries: [Entry] = []
        var limitEntries: [Entry] = []
        var cors: (policy: CORSPolicy?, entry: Entry)?
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
                case "auth": verifierEntries += namedEntries(member.value, document, pointer, what: "auth")
                case "limits": limitEntries += namedEntries(member.value, document, pointer, what: "limits")
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
                case "cors":
                    let entry = Entry(name: "cors", value: member.value, document: document, pointer: pointer)
                    if let earlier = cors {
                        report(document, pointer, "`cors` is set twice (first at \(earlier.entry.location))")
                    } else {
                        cors = (compileCORS(member.value, document, pointer), entry)
                    }
                default:
                    report(
                        document, pointer,
                        "unknown top-level key '\(member.key)' (expected upstreams, types, routes, auth, cors or limits)"
                    )
                }
            }
        }
        checkUnique(upstreamEntries, what: "upstream")
        checkUnique(typeEntries, what: "type")
        checkUnique(verifierEntries, what: "verifier")
        checkUnique(limitEntries, what: "limit policy")
        checkUnique(routeEntries.filter { !$0.name.isEmpty }, what: "route")

        var upstreams: [String: Upstream] = [:]
        for entry in upstreamEntries where upstreams[entry.name] == nil {
            if let upstream = compileUpstream(entry) { upstreams[entry.name] = upstream }
        }
        let types = compileTypes(typeEntries)
        var verifiers: [String: AuthVerifierRule] = [:]
        for entry in verifierEntries where verifiers[entry.name] == nil {
            if let verifier = compileVerifier(entry) { verifiers[entry.name] = verifier }
        }
        let verifierNames = Set(verifierEntries.map(\.name))
        limitNames = Set(limitEntries.map(\.name))
        for entry in limitEntries where limitPolicies[entry.name] == nil {
            if let policy = compileLimitPolicy(entry) { limitPolicies[entry.name] = policy }
        }
        var routes: [Route] = []
        // A route's answer depends on its own text, the types it may validate against and its
        // upstreams' definitions: a reload that changes any of them changes its fingerprint.
        let typesText = typeEntries.map { $0.name + "=" + $0.value.serializedString() }.joined(separator: "\n")
        var upstreamTexts: [String: String] = [:]
        for entry in upstreamEntries { upstreamTexts[entry.name] = entry.value.serializedString() }
        for entry in routeEntries {
            if var route = compileRoute(
                entry, upstreamNames: Set(upstreamEntries.map(\.name)), types: types, verifiers: verifierNames)
            {
                let upstreamNames = Set(route.fetches.map(\.upstream) + route.stages.map(\.expand.fetch.upstream))
                    .sorted()
                warnIfNeverCached(route, upstreams: upstreamNames.compactMap { upstreams[$0] }, entry)
                route.fingerprint = RuleDigest.of(
                    [("route", entry.value.serializedString()), ("types", typesText)]
                        + upstreamNames.map { ($0, upstreamTexts[$0] ?? "") })
                if route.conditional {
                    route.conditionalFingerprint = ConditionalFingerprint.of(
                        routeText: entry.value.serializedString(),
                        upstreams: upstreamNames.map { ($0, upstreamTexts[$0] ?? "") })
                }
                routes.append(route)
            }
        }
        checkOverlappingRoutes(routes)
        ConditionalFingerprint.combine(&routes)

        if !problems.isEmpty { return .failure(RuleDiagnostics(problems)) }
        let digest = RuleDigest.of(files)
        var seenTypes: Set<String> = []
        var ruleSet = RuleSet(
            upstreams: upstreams, routes: routes, digest: digest,
            warnings: RuleDiagnostics(warnings).diagnostics,
            types: typeEntries.filter { seenTypes.insert($0.name).inserted }.map { ($0.name, $0.value) })
        ruleSet.verifiers = verifiers
        ruleSet.limits = limitPolicies
        ruleSet.cors = cors?.policy
        return .success(ruleSet)
    }

    // MARK: - Entries

    private mutating func namedEntries(_ value: JSON, _ document: SourceDocument, _ pointer: String, what: String)
        -> [Entry]
    {
        guard case .object(let object) = value else {
            if case .null = value { return [] }
            report(document, pointer, "`\(what)` must be a mapping from names to definitions")
            return []
        }
        return object.members.map {
            Entry(
                name: $0.key, value: $0.value, document: document,
                pointer: JSONPointer.appending(key: $0.key, to: pointer))
        }
    }

    private mutating func checkUnique(_ entries: [Entry], what: String) {
        var first: [String: Entry] = [:]
        for entry in entries {
            if let earlier = first[entry.name] {
                problems.append(
                    RuleDiagnostic(
                        location: entry.location,
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
                problems.append(
                    RuleDiagnostic(
                        location: entry.document.location(of: entry.pointer + inner),
                        message: "type '\(entry.name)': \(error.message)"))
                // An error no single type can be blamed for, or one that stays: stop here.
                guard let index, schemas[index] != .bool(true) else { return nil }
                schemas[index] = .bool(true)
            }
        }
        return nil
    }

    // MARK: - Routes (compiled in RouteCompiler.swift)

    private mutating func checkOverlappingRoutes(_ routes: [Route]) {
        var seen: [String: Route] = [:]
        for route in routes {
            // Captures match the same requests whatever they are called.
            let shape =
                route.method + " "
                + route.path.segments.map {
                    if case .literal(let text) = $0 { return text } else { return "{}" }
                }.joined(separator: "/")
            if let earlier = seen[shape] {
                problems.append(
                    RuleDiagnostic(
                        location: route.location,
                        message:
                            "route '\(route.name)' answers the same requests as route '\(earlier.name)' (\(earlier.location))"
                    ))
            } else {
                seen[shape] = route
            }
        }
    }

    // MARK: - Reporting

    /// Reports every member of `object` not in `allowed`; false when there was one.
    mutating func reportUnknownKeys(
        in object: JSONObject, allowed: Set<String>, what: String,
        _ document: SourceDocument, _ pointer: String
    ) -> Bool {
        var clean = true
        for member in object.members where !allowed.contains(member.key) {
            report(
                document, pointer + "/" + JSONPointer.escape(member.key),
                "unknown \(what) '\(member.key)' (expected \(allowed.sorted().joined(separator: ", ")))")
            clean = false
        }
        return clean
    }

    mutating func report(_ document: SourceDocument, _ pointer: String, _ message: String) {
        problems.append(RuleDiagnostic(location: document.location(of: pointer), message: message))
    }

    /// A problem with a member as a whole, reported where its key is written.
    mutating func reportAtKey(_ document: SourceDocument, _ pointer: String, _ message: String) {
        problems.append(RuleDiagnostic(location: document.keyLocation(of: pointer), message: message))
    }

    mutating func warn(_ document: SourceDocument, _ pointer: String, _ message: String) {
        warnings.append(RuleDiagnostic(location: document.location(of: pointer), message: message))
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

extension RuleSetBuilder {
    /// A `cache:` route that says `upstream-cache-control: honor` in front of a Firebase host,
    /// whose front end marks every answer `no-cache`: its answers would never be cached.
    mutating func warnIfNeverCached(_ route: Route, upstreams: [Upstream], _ entry: Entry) {
        guard route.cache?.upstreamCacheControl == .honor,
            let firebase = upstreams.first(where: \.isFirebaseHost)
        else { return }
        warn(
            entry.document, entry.pointer + "/cache/upstream-cache-control",
            "upstream '\(firebase.name)' is a Firebase host, which marks every answer Cache-Control: no-cache: "
                + "with `upstream-cache-control: honor` this route's answers are never cached "
                + "(leave it out to ignore only no-cache, or say ignore)")
    }
}
