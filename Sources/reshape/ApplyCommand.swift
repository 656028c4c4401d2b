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

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp("A path capture, as the client would send it (repeatable).", valueName: "name=value"))
    var parameters: [String] = []

    @Option(
        name: .customLong("request-body"),
        help: ArgumentHelp("The client's JSON body, for a route with `body`.", valueName: "file"))
    var requestBody: String?

    @Option(
        name: .customLong("upstream"),
        help: ArgumentHelp("A `fetch:` route's body for one fetch (repeatable).", valueName: "name=file"))
    var upstreams: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The client's query string: Firebase's (`firebase-query: true`; `order: query` follows its orderBy) "
                + "and a `client-query` view's (fields, filters, sort, limit), made last.",
            valueName: "query"))
    var query: String?

    @Option(
        name: .customLong("follow-up"),
        help: ArgumentHelp(
            "An `expand` follow-up's body by upstream path, e.g. /users/u1.json=u1.json (repeatable).",
            valueName: "path=file"))
    var followUps: [String] = []

    @Flag(name: .long, help: "Indent the output.")
    var pretty = false

    @Argument(help: ArgumentHelp("The upstream body; standard input when omitted or '-'.", valueName: "file"))
    var file: String?

    func run() throws {
        try withExitCodes {
            let ruleSet = try Terminal.loadRules(rules)
            let inputs = RouteInputs(
                route: route, parameters: parameters, upstreams: upstreams, followUps: followUps, file: file,
                query: query)
            let selected = try inputs.selected(in: ruleSet)
            let captures = try inputs.captures(for: selected)
            let queryOrder = try inputs.queryOrder(for: selected)
            if let requestBody { try send(requestBody, selected, captures) }
            let fetched = try inputs.fetchedBodies(selected)
            let followUpBodies = try inputs.followUpBodies()
            let output: PipelineOutput
            do throws(PipelineError) {
                output = try OfflineRun.respond(
                    selected, fetched: fetched, followUps: followUpBodies, parameters: captures, queryOrder: queryOrder)
            } catch {
                RouteInputs.report(error, route: route)
                throw ExitCodeError.invalidInput
            }
            for dropped in output.dropped {
                Terminal.error("dropped \(dropped.pointer) (\(dropped.type)): \(dropped.reason)")
            }
            var bytes = pretty ? output.value.serialized(pretty: true) : output.serialized()
            // A `client-query` route's view, as the server would send it for `--query`.
            if let view = try inputs.clientView(of: output.value, selected) {
                bytes = pretty ? view.serialized(pretty: true) : view.serialized()
            }
            bytes.append(0x0A)
            Terminal.write(bytes)
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
            RouteInputs.report(error, route: route, what: "request body")
            throw ExitCodeError.invalidInput
        }
    }
}
