import ArgumentParser
import ReshapeRules

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load and lint rule files; print file:line:column: message for each problem.",
        discussion: """
            Everything `reshape serve` would refuse is reported here, all at once: YAML and JSON \
            syntax, unknown keys and operations, unknown types and upstreams, schemas that do not \
            compile, unset ${VAR}s, duplicate names across files. Things allowed but suspicious \
            (listing a header that is never forwarded) are printed as file:line:column: warning: \
            message and do not fail the check. Exit status: 0 clean (warnings or not), 1 problems.

              reshape check --rules examples/rules
            """)

    @Option(name: .long, help: ArgumentHelp("A rules directory or a single rule file.", valueName: "path"))
    var rules: String

    func run() throws {
        try withExitCodes {
            let ruleSet = try Terminal.loadRules(rules)
            for warning in ruleSet.warnings { Terminal.error("\(warning.location): warning: \(warning.message)") }
            let examples = ruleSet.routes.reduce(0) { $0 + $1.examples.count }
            let warnings = ruleSet.warnings.count
            print(
                "\(rules): \(ruleSet.upstreams.count) upstream\(ruleSet.upstreams.count == 1 ? "" : "s"), "
                    + "\(ruleSet.routes.count) route\(ruleSet.routes.count == 1 ? "" : "s"), \(examples) example\(examples == 1 ? "" : "s"); no problems"
                    + (warnings == 0 ? "" : ", \(warnings) warning\(warnings == 1 ? "" : "s")"))
        }
    }
}
