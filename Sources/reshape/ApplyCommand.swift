import ArgumentParser
import ReshapeJSON
import ReshapeRules

struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Run one route on JSON files (or standard input) and print the result.",
        discussion: """
        Does exactly what the server does with what the upstreams answer, offline: the client \
        body checked and encoded (--request-body; what would be sent is printed on standard \
        error), the route's transform, and `expand` follow-ups answered by upstream path \
        (--follow-up; a path not given answers 404, so the follow-up is missing). Dropped \
        elements are listed on standard error. Exit status: 0 ok, 1 invalid JSON, a refused \
        request body or a failed transform, 2 a usage mistake.

          curl -s https://my-app.firebaseio.com/users.json > users.json
          reshape apply --rules examples/rules --route users users.json
          reshape apply --rules examples/rules --route user --param id=-Nx1 < user.json
          reshape apply --rules r --route create-user --request-body b.json up.json
          reshape apply --rules r --route profile --upstream user=u.json \\
            --upstream devices=d.json --param id=u1
          reshape apply --rules r --route posts --follow-up /users/u1.json=a.json \\
            p.json

        On a `fetch:` route, each fetch's body is given with --upstream NAME=FILE (an optional \
        fetch left out counts as failed: null); without --upstream, the file argument (or \
        standard input) is an object of bodies by fetch name, as in examples.
        """)

    @Option(name: .long, help: ArgumentHelp("A rules directory or a single rule file.", valueName: "path"))
    var rules: String

    @Option(name: .long, help: "The route's name.")
    var route: String

    @Option(name: .customLong("param"), help: ArgumentHelp("A path capture, as the client would send it (repeatable).", valueName: "name=value"))
    var parameters: [String] = []

    @Option(name: .customLong("request-body"), help: ArgumentHelp("The client's JSON body, for a route with `body`.", valueName: "file"))
    var requestBody: String?

    @Option(name: .customLong("upstream"), help: ArgumentHelp("A `fetch:` route's body for one fetch (repeatable).", valueName: "name=file"))
    var upstreams: [String] = []

    @Option(name: .customLong("follow-up"), help: ArgumentHelp("An `expand` follow-up's body by upstream path, e.g. /users/u1.json=u1.json (repeatable).",
                                                                valueName: "path=file"))
    var followUps: [String] = []

    @Flag(name: .long, help: "Indent the output.")
    var pretty = false

    @Argument(help: ArgumentHelp("The upstream body; standard input when omitted or '-'.", valueName: "file"))
    var file: String?

    func run() throws {
        try withExitCodes {
            let ruleSet = try Terminal.loadRules(rules)
            guard let selected = ruleSet.routes.first(where: { $0.name == route }) else {
                Terminal.error("reshape: no route named '\(route)' (routes: \(ruleSet.routes.map(\.name).joined(separator: ", ")))")
                throw ExitCodeError.usage
            }
            var captures: [String: String] = [:]
            for parameter in parameters {
                let (name, value) = try Self.pair(parameter, option: "--param", shape: "name=value")
                captures[name] = value
            }
            let missing = selected.path.parameterNames.filter { captures[$0] == nil }
            if !missing.isEmpty {
                Terminal.error("reshape: route '\(route)' needs --param \(missing.map { "\($0)=..." }.joined(separator: " --param "))")
                throw ExitCodeError.usage
            }
            if let requestBody { try send(requestBody, selected, captures) }
            let fetched = try fetchedBodies(selected)
            var followUpBodies: [String: JSONTape] = [:]
            for followUp in followUps {
                let (path, file) = try Self.pair(followUp, option: "--follow-up", shape: "/upstream/path=file")
                guard path.hasPrefix("/") else {
                    Terminal.error("reshape: --follow-up names an upstream path starting with '/' (got '\(path)')")
                    throw ExitCodeError.usage
                }
                followUpBodies[path] = try Terminal.parseTape(try Terminal.read(file), name: file)
            }
            do throws(PipelineError) {
                let output = try OfflineRun.respond(selected, fetched: fetched, followUps: followUpBodies, parameters: captures)
                for dropped in output.dropped {
                    Terminal.error("dropped \(dropped.pointer) (\(dropped.type)): \(dropped.reason)")
                }
                var bytes = pretty ? output.value.serialized(pretty: true) : output.serialized()
                bytes.append(0x0A)
                Terminal.write(bytes)
            } catch {
                Self.report(error, route: route)
                throw ExitCodeError.invalidInput
            }
        }
    }

    /// Checks and encodes the client body as the server would, and says what would be sent.
    private func send(_ path: String, _ selected: Route, _ captures: [String: String]) throws {
        guard selected.body != nil else {
            Terminal.error("reshape: route '\(route)' takes no request body (it has no `body`)")
            throw ExitCodeError.usage
        }
        let body = try Terminal.parseJSON(try Terminal.read(path), name: path)
        do throws(PipelineError) {
            let prepared = try OfflineRun.prepareBody(selected, body, parameters: captures)
            Terminal.error("sends \(prepared.contentType): \(String(decoding: prepared.bytes, as: UTF8.self))")
        } catch {
            Self.report(error, route: route, what: "request body")
            throw ExitCodeError.invalidInput
        }
    }

    /// The upstream body, or a `fetch:` route's bodies by name.
    private func fetchedBodies(_ selected: Route) throws -> OfflineRun.Fetched {
        if selected.isSingleFetch {
            if !upstreams.isEmpty {
                Terminal.error("reshape: --upstream NAME=FILE is for `fetch:` routes; give route '\(route)' its upstream body as the file argument")
                throw ExitCodeError.usage
            }
            return .single(try Terminal.parseTape(try Terminal.read(file), name: file ?? "stdin"))
        }
        let names = selected.fetches.map(\.name)
        var bodies: [String: JSON] = [:]
        if upstreams.isEmpty {
            let all = try Terminal.parseJSON(try Terminal.read(file), name: file ?? "stdin")
            guard case .object(let object) = all else {
                Terminal.error("reshape: route '\(route)' fetches \(names.joined(separator: ", ")): give each with --upstream NAME=FILE, or an object of bodies by name")
                throw ExitCodeError.usage
            }
            for member in object.members { bodies[member.key] = member.value }
        } else {
            if file != nil {
                Terminal.error("reshape: give route '\(route)' its bodies either with --upstream or as one file, not both")
                throw ExitCodeError.usage
            }
            for upstream in upstreams {
                let (name, path) = try Self.pair(upstream, option: "--upstream", shape: "name=file")
                bodies[name] = try Terminal.parseJSON(try Terminal.read(path), name: path)
            }
        }
        if let unknown = bodies.keys.sorted().first(where: { !names.contains($0) }) {
            Terminal.error("reshape: route '\(route)' has no fetch '\(unknown)' (it fetches \(names.joined(separator: ", ")))")
            throw ExitCodeError.usage
        }
        let required = selected.fetches.filter { !$0.optional && bodies[$0.name] == nil }.map(\.name)
        if !required.isEmpty {
            Terminal.error("reshape: route '\(route)' needs a body for \(required.map { "'\($0)'" }.joined(separator: ", ")) (only an optional fetch may be left out)")
            throw ExitCodeError.usage
        }
        return .fanOut(bodies)
    }

    private static func pair(_ text: String, option: String, shape: String) throws -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            Terminal.error("reshape: \(option) takes \(shape) (got '\(text)')")
            throw ExitCodeError.usage
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    private static func report(_ error: PipelineError, route: String, what: String? = nil) {
        Terminal.error("reshape: route '\(route)'\(what.map { " \($0)" } ?? ""): \(error)")
        for violation in error.errors { Terminal.error("  \(violation.pointer): \(violation.keyword): \(violation.reason)") }
    }
}
