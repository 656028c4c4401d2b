import ReshapeJSON
import ReshapeProxy
import ReshapeRules

/// What `apply` and `explain` take to run a route offline: path captures, the upstream body
/// (or a `fetch:` route's bodies) and `expand` follow-up bodies, checked against the route.
struct RouteInputs {
    var route: String
    var parameters: [String]
    var upstreams: [String]
    var followUps: [String]
    var file: String?
    /// `--query`: the client's query string, for a route with `firebase-query: true`.
    var query: String? = nil

    func selected(in ruleSet: RuleSet) throws -> Route {
        guard let selected = ruleSet.routes.first(where: { $0.name == route }) else {
            Terminal.error(
                "reshape: no route named '\(route)' (routes: \(ruleSet.routes.map(\.name).joined(separator: ", ")))")
            throw ExitCodeError.usage
        }
        return selected
    }

    func captures(for selected: Route) throws -> [String: String] {
        var captures: [String: String] = [:]
        for parameter in parameters {
            let (name, value) = try Self.pair(parameter, option: "--param", shape: "name=value")
            captures[name] = value
        }
        let missing = selected.path.parameterNames.filter { captures[$0] == nil }
        if !missing.isEmpty {
            Terminal.error(
                "reshape: route '\(route)' needs --param \(missing.map { "\($0)=..." }.joined(separator: " --param "))")
            throw ExitCodeError.usage
        }
        return captures
    }

    /// The order `order: query` gives: the `--query` string's `orderBy`, checked as the server
    /// checks it (by key without one).
    func queryOrder(for selected: Route) throws -> FirebaseQuery.Order {
        guard let query else { return .key }
        if selected.firebaseQuery == .off, selected.clientQuery != nil { return .key }
        guard selected.firebaseQuery != .off else {
            Terminal.error(
                "reshape: --query is for a route with `firebase-query: true` or `client-query`; '\(route)' has neither")
            throw ExitCodeError.usage
        }
        do {
            return try UpstreamRequestBuilder.firebaseQuery(route: selected, rawQuery: Substring(query))?.order ?? .key
        } catch {
            Terminal.error("reshape: --query: \(error.detail)")
            throw ExitCodeError.usage
        }
    }

    /// The view `--query` asks of a `client-query` route's answer; nil when it asks none.
    func clientView(of answer: JSON, _ selected: Route) throws -> JSON? {
        guard let query, selected.clientQuery != nil else { return nil }
        do {
            return try ClientView.view(of: answer, rawQuery: query, route: selected)
        } catch {
            Terminal.error("reshape: --query: '\(error.name)' \(error.detail) (\(error.code.rawValue))")
            throw ExitCodeError.usage
        }
    }

    func followUpBodies() throws -> [String: JSONTape] {
        var bodies: [String: JSONTape] = [:]
        for followUp in followUps {
            let (path, file) = try Self.pair(followUp, option: "--follow-up", shape: "/upstream/path=file")
            guard path.hasPrefix("/") else {
                Terminal.error("reshape: --follow-up names an upstream path starting with '/' (got '\(path)')")
                throw ExitCodeError.usage
            }
            bodies[path] = try Terminal.parseTape(try Terminal.read(file), name: file)
        }
        return bodies
    }

    /// The upstream body, or a `fetch:` route's bodies by name.
    func fetchedBodies(_ selected: Route) throws -> OfflineRun.Fetched {
        if selected.isSingleFetch {
            if !upstreams.isEmpty {
                Terminal.error(
                    "reshape: --upstream NAME=FILE is for `fetch:` routes; give route '\(route)' its upstream body as the file argument"
                )
                throw ExitCodeError.usage
            }
            return .single(try Terminal.parseTape(try Terminal.read(file), name: file ?? "stdin"))
        }
        let names = selected.fetches.map(\.name)
        var bodies: [String: JSON] = [:]
        if upstreams.isEmpty {
            let all = try Terminal.parseJSON(try Terminal.read(file), name: file ?? "stdin")
            guard case .object(let object) = all else {
                Terminal.error(
                    "reshape: route '\(route)' fetches \(names.joined(separator: ", ")): give each with --upstream NAME=FILE, or an object of bodies by name"
                )
                throw ExitCodeError.usage
            }
            for member in object.members { bodies[member.key] = member.value }
        } else {
            if file != nil {
                Terminal.error(
                    "reshape: give route '\(route)' its bodies either with --upstream or as one file, not both")
                throw ExitCodeError.usage
            }
            for upstream in upstreams {
                let (name, path) = try Self.pair(upstream, option: "--upstream", shape: "name=file")
                bodies[name] = try Terminal.parseJSON(try Terminal.read(path), name: path)
            }
        }
        if let unknown = bodies.keys.sorted().first(where: { !names.contains($0) }) {
            Terminal.error(
                "reshape: route '\(route)' has no fetch '\(unknown)' (it fetches \(names.joined(separator: ", ")))")
            throw ExitCodeError.usage
        }
        let required = selected.fetches.filter { !$0.optional && bodies[$0.name] == nil }.map(\.name)
        if !required.isEmpty {
            Terminal.error(
                "reshape: route '\(route)' needs a body for \(required.map { "'\($0)'" }.joined(separator: ", ")) (only an optional fetch may be left out)"
            )
            throw ExitCodeError.usage
        }
        return .fanOut(bodies)
    }

    static func pair(_ text: String, option: String, shape: String) throws -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            Terminal.error("reshape: \(option) takes \(shape) (got '\(text)')")
            throw ExitCodeError.usage
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    static func report(_ error: PipelineError, route: String, what: String? = nil) {
        Terminal.error("reshape: route '\(route)'\(what.map { " \($0)" } ?? ""): \(error)")
        for violation in error.errors {
            Terminal.error("  \(violation.pointer): \(violation.keyword): \(violation.reason)")
        }
    }
}
