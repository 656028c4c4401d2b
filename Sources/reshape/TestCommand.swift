import ArgumentParser
import ReshapeRules

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run every route's examples offline and print 'N passed, N failed'.",
        discussion: """
            Each example gives what the upstream sends and what the client must receive (or the \
            error code expected); on newer shapes also the client's body (`request-body`, and what \
            must be sent for it: `sends`), a `fetch:` route's bodies by fetch name, and `expand` \
            follow-up bodies by upstream path (`follow-ups`). Examples run the way the server runs \
            the route. No network is used. Exit status: 0 all pass, 1 otherwise.

              reshape test --rules examples/rules
            """)

    @Option(name: .long, help: ArgumentHelp("A rules directory or a single rule file.", valueName: "path"))
    var rules: String

    func run() throws {
        try withExitCodes {
            let ruleSet = try Terminal.loadRules(rules)
            let outcomes = ExampleRunner.run(ruleSet)
            var failed = 0
            for outcome in outcomes {
                if let failure = outcome.failure {
                    failed += 1
                    print("FAIL \(outcome.route) example \(outcome.index + 1) (\(outcome.location)): \(failure)")
                } else {
                    print("ok   \(outcome.route) example \(outcome.index + 1)")
                }
            }
            print("\(outcomes.count - failed) passed, \(failed) failed")
            if failed > 0 { throw ExitCodeError.invalidInput }
        }
    }
}
