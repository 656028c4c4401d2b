import ArgumentParser
import Glibc

/// The version `reshape --version` prints.
let reshapeVersion = "0.1.0"

struct Reshape: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reshape",
        abstract: "An HTTP JSON-normalizing proxy: fetch, reshape by rules, validate, answer clean JSON.",
        discussion: """
            Rules live in a directory of .yaml/.yml/.json files (see docs/rules.md). Try them offline \
            first, then serve them:

              reshape check --rules examples/rules
              reshape test  --rules examples/rules
              reshape apply --rules examples/rules --route users upstream.json
              reshape replay --rules examples/rules --route users examples/streams/users.sse
              reshape explain --rules examples/rules --route users upstream.json
              reshape infer sample.json > rules/new.yaml
              reshape serve --rules examples/rules --listen 127.0.0.1:8080
            """,
        version: reshapeVersion,
        subcommands: CommandList.all
    )
}

/// Runs the command line. Usage mistakes exit 2 (ArgumentParser's default would be 64) so that
/// every verb keeps the contract: 0 ok, 1 the input is bad, 2 the command is.
@main
enum Main {
    static func main() {
        do {
            var command = try Reshape.parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Glibc.exit(exit.rawValue)
        } catch {
            let code = Reshape.exitCode(for: error)
            let message = Reshape.fullMessage(for: error)
            if code == .success {
                print(message)
                Glibc.exit(0)
            }
            Terminal.error(message)
            Glibc.exit(code == .failure ? 1 : 2)
        }
    }
}
