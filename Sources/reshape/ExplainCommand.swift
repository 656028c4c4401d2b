import ArgumentParser
import ReshapeContract
import ReshapeJSON
import ReshapeRules

struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Run one route offline and show what each transform step did.",
        discussion: """
            Takes what `reshape apply` takes and runs the route the same way, printing per step \
            the operation, a one-line view of the value after it, and every element it dropped or \
            field it coerced, with its JSON Pointer and reason. --json prints a JSON array of \
            steps instead (each with the whole value). Exit status: 0 ok, 1 invalid JSON or a \
            failed step (shown as the last step), 2 a usage mistake.

              reshape explain --rules examples/rules --route users users.json
              reshape explain --rules examples/rules --route user --param id=-Nx1 user.json
              reshape explain --rules r --route profile --upstream user=u.json --json
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
        help: ArgumentHelp("An `expand` follow-up's body by upstream path (repeatable).", valueName: "path=file"))
    var followUps: [String] = []

    @Flag(name: .long, help: "Print a JSON array of steps.")
    var json = false

    @Option(name: .long, help: "Characters per value line.")
    var width = 100

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
            let fetched = try inputs.fetchedBodies(selected)
            let followUpBodies = try inputs.followUpBodies()
            var traces: [StepTrace] = []
            var failure: (step: String, error: PipelineError)?
            var answer: JSON?
            do throws(PipelineError) {
                answer = try OfflineRun.respond(
                    selected, fetched: fetched, followUps: followUpBodies, parameters: captures, queryOrder: queryOrder,
                    observe: { traces.append($0) }
                ).value
            } catch {
                let planned = ExplainReport.plannedSteps(selected)
                failure = (traces.count < planned.count ? planned[traces.count] : "route", error)
            }
            if let answer, let trace = try Self.clientView(answer, inputs, selected) { traces.append(trace) }
            let input = Self.input(fetched, selected)
            let steps = StepExplanation.steps(traces, input: input)
            if json {
                var bytes = ExplainReport.json(steps: steps, failure: failure).serialized(pretty: true)
                bytes.append(0x0A)
                Terminal.write(bytes)
            } else {
                Terminal.write(
                    Array(ExplainReport.text(input: input, steps: steps, failure: failure, width: width).utf8))
            }
            if failure != nil { throw ExitCodeError.invalidInput }
        }
    }

    /// The client query's view of the answer as one more step (`client-query`), when the route
    /// has one and `--query` asks for a view.
    private static func clientView(_ answer: JSON, _ inputs: RouteInputs, _ route: Route) throws -> StepTrace? {
        guard let view = try inputs.clientView(of: answer, route) else { return nil }
        return StepTrace(
            name: "client-query", argument: inputs.query.map(JSON.string), operation: nil, value: view, dropped: [])
    }

    /// The transform's input as the run sees it: the body, or a `fetch:` route's object of bodies.
    private static func input(_ fetched: OfflineRun.Fetched, _ route: Route) -> JSON {
        switch fetched {
        case .single(let tape): return tape.materialize(tape.root)
        case .fanOut(let bodies):
            return RouteRun.fanOutInput(route.fetches.map { (name: $0.name, body: bodies[$0.name]) })
        }
    }
}
