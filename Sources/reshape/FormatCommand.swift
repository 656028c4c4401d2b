import ArgumentParser
import ReshapeJSON

struct FormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Parse JSON strictly (RFC 8259) and print it canonically.",
        discussion: """
            Member order and number spelling are kept exactly; only whitespace changes. Duplicate \
            member names, comments, trailing commas and invalid UTF-8 are errors. Exit status: 0 ok, \
            1 invalid JSON with line:column: message.

              reshape format response.json
              curl -s http://127.0.0.1:8080/users | reshape format --compact
            """)

    @Flag(name: .long, help: "Print on one line instead of indenting.")
    var compact = false

    @Argument(help: ArgumentHelp("The JSON file; standard input when omitted or '-'.", valueName: "file"))
    var file: String?

    func run() throws {
        try withExitCodes {
            let value = try Terminal.parseJSON(try Terminal.read(file), name: file ?? "stdin")
            Terminal.write(value.serialized(pretty: !compact) + [0x0A])
        }
    }
}
