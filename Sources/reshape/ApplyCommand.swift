import ArgumentParser
import ReshapeJSON
import ReshapeRules

struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Run one route's transform on a JSON file (or standard input) and print the result.",
        discussion: """
        Does exactly what the server does to an upstream body, offline. Dropped elements are \
        listed on standard error. Exit status: 0 ok, 1 invalid JSON or a failed transform.

          curl -s https://my-app.firebaseio.com/users.json > users.json
          reshape apply --rules examples/rules --route users users.json
          reshape apply --rules examples/rules --route user --param id=-Nx1 < user.json
        """)

    @Option(name: .long, help: ArgumentHelp("A rules directory or a single rule file.", valueName: "path"))
    var rules: String

    @Option(name: .long, help: "The route's name.")
    var route: String

    @Option(name: .customLong("param"), help: ArgumentHelp("A path capture, as the client would send it (repeatable).", valueName: "name=value"))
    var parameters: [String] = []

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
                guard let equals = parameter.firstIndex(of: "=") else {
                    Terminal.error("reshape: --param takes name=value (got '\(parameter)')")
                    throw ExitCodeError.usage
                }
                captures[String(parameter[..<equals])] = String(parameter[parameter.index(after: equals)...])
            }
            let missing = selected.path.parameterNames.filter { captures[$0] == nil }
            if !missing.isEmpty {
                Terminal.error("reshape: route '\(route)' needs --param \(missing.map { "\($0)=..." }.joined(separator: " --param "))")
                throw ExitCodeError.usage
            }
            let input = try Terminal.parseTape(try Terminal.read(file), name: file ?? "stdin")
            do throws(PipelineError) {
                let output = try selected.pipeline.run(input, parameters: captures)
                for dropped in output.dropped {
                    Terminal.error("dropped \(dropped.pointer) (\(dropped.type)): \(dropped.reason)")
                }
                var bytes = pretty ? output.value.serialized(pretty: true) : output.serialized()
                bytes.append(0x0A)
                Terminal.write(bytes)
            } catch {
                Terminal.error("reshape: route '\(route)': \(error)")
                for violation in error.errors { Terminal.error("  \(violation.pointer): \(violation.keyword): \(violation.reason)") }
                throw ExitCodeError.invalidInput
            }
        }
    }
}
