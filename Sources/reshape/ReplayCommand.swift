import ArgumentParser
import ReshapeJSON
import ReshapeLive
import ReshapeProxy
import ReshapeRules

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recorded Firebase event stream through a route; print what a subscriber gets.",
        discussion: """
            Reads a recorded Firebase stream (raw text/event-stream bytes), applies each event to \
            the streamed document, runs the route's transform as `apply` does, and prints the \
            server-sent events a live subscriber would get: a `snapshot` at the first `put` of \
            the whole value, a `patch` (RFC 6902) for each event that changes the answer, an \
            `error` when the stream ends (docs/live.md). The route must be a GET with one fetch \
            (no `fetch:`, no `expand`). Exit status: 0 ok, 1 a bad recording or a stream ended \
            by an `error` event, 2 a usage mistake.

              curl -sN -H 'Accept: text/event-stream' https://my-app.firebaseio.com/users.json \\
                > users.sse
              reshape replay --rules examples/rules --route users examples/streams/users.sse
              reshape replay --rules examples/rules --route user --param id=-Nx1 < user.sse
            """)

    @Option(name: .long, help: ArgumentHelp("A rules directory or a single rule file.", valueName: "path"))
    var rules: String

    @Option(name: .long, help: "The route's name.")
    var route: String

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp("A path capture, as the client would send it (repeatable).", valueName: "name=value"))
    var parameters: [String] = []

    @Argument(help: ArgumentHelp("The recorded stream; standard input when omitted or '-'.", valueName: "file"))
    var file: String?

    func run() throws {
        try withExitCodes {
            let ruleSet = try Terminal.loadRules(rules)
            let inputs = RouteInputs(route: route, parameters: parameters, upstreams: [], followUps: [], file: file)
            let selected = try inputs.selected(in: ruleSet)
            try checkLive(selected)
            let captures = try inputs.captures(for: selected)
            let name = file.flatMap { $0 == "-" ? nil : $0 } ?? "stdin"
            let recording = try RecordedStream(try Terminal.read(file), name: name)
            var stream = LiveNormalizer.stream(
                for: selected, in: ruleSet, parameters: captures, context: Self.context(selected))
            var output: [UInt8] = []
            var sent = 0
            for (index, entry) in recording.entries.enumerated() {
                switch stream.received(entry.event) {
                case .none:
                    continue
                case .send(let event):
                    event.appendServerSentEvent(to: &output)
                    sent += 1
                case .end(let event):
                    event.appendServerSentEvent(to: &output)
                    Terminal.write(output)
                    let rest = recording.entries.count - index - 1
                    let ignored = rest > 0 ? "; \(rest) later event\(rest == 1 ? "" : "s") not replayed" : ""
                    Terminal.error(
                        "reshape: route '\(route)': \(name):\(entry.line): event \(entry.number) ended the stream with \(Self.code(of: event))\(ignored)"
                    )
                    throw ExitCodeError.invalidInput
                }
            }
            Terminal.write(output)
            if sent == 0 {
                Terminal.error(
                    "reshape: \(name): no `put` of the whole value (path \"/\"): a subscriber gets nothing yet")
            }
        }
    }

    /// Live streams are for GET routes that make one fetch: a stream is one upstream location.
    private func checkLive(_ selected: Route) throws {
        let why: String
        if selected.method != "GET" {
            why = "it is a \(selected.method) route"
        } else if !selected.isSingleFetch {
            why = "it fetches \(selected.fetches.map(\.name).joined(separator: ", ")) (`fetch:`)"
        } else if !selected.stages.isEmpty {
            why = "it has `expand`"
        } else {
            return
        }
        Terminal.error(
            "reshape: route '\(route)' cannot be streamed: \(why); a live route is a GET with one fetch, without `expand`"
        )
        throw ExitCodeError.usage
    }

    /// The members the server's problems name the route by.
    private static func context(_ selected: Route) -> [JSONMember] {
        [
            JSONMember(key: "route", value: .string(selected.name)),
            JSONMember(key: "upstream", value: .string(selected.upstream)),
        ]
    }

    private static func code(of event: LiveEvent) -> String {
        if case .error(let problem) = event.kind { return problem.code }
        return event.name
    }
}
