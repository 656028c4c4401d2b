import ArgumentParser
import Glibc
import ReshapeJSON
import ReshapeRules
import ReshapeSchema

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate one JSON instance against a JSON Schema (draft 2020-12).",
        discussion: """
            Prints one 'pointer: keyword: reason' line per violation. Remote $refs are never \
            fetched: --map serves a URL prefix from a local directory. Exit status: 0 valid, \
            1 invalid, 2 a bad schema or bad usage.

              reshape validate --schema user.schema.json user.json
              reshape validate --schema s.json --map http://localhost:1234/=remotes/ data.json
            """)

    @Option(name: .long, help: ArgumentHelp("The schema file.", valueName: "file"))
    var schema: String

    @Option(
        name: .customLong("map"),
        help: ArgumentHelp("Serve $refs under URL from files in DIR (repeatable).", valueName: "URL=DIR"))
    var maps: [String] = []

    @Flag(name: .customLong("assert-format"), help: "Make `format` an assertion instead of an annotation.")
    var assertFormat = false

    @Argument(help: ArgumentHelp("The instance; standard input when omitted or '-'.", valueName: "file"))
    var instance: String?

    func run() throws {
        do {
            try check()
        } catch let error as ExitCodeError {
            // A schema that does not parse is a bad schema (2), not an invalid instance (1).
            throw error.exitCode
        }
    }

    private func check() throws {
        var prefixes: [(url: String, directory: String)] = []
        for map in maps {
            guard let equals = map.firstIndex(of: "=") else {
                Terminal.error("reshape: --map takes URL=DIR (got '\(map)')")
                throw ExitCodeError.usage
            }
            prefixes.append((String(map[..<equals]), String(map[map.index(after: equals)...])))
        }
        let schemaBytes = try Terminal.read(schema)
        let schemaValue: JSON
        do {
            schemaValue = try JSON.parse(schemaBytes)
        } catch {
            Terminal.error("\(schema):\(error.line):\(error.column): \(error.message)")
            throw ExitCodeError.usage
        }
        let resolved = prefixes
        let resolve: @Sendable (String) -> JSON? = { url in
            for (prefix, directory) in resolved where url.hasPrefix(prefix) {
                let relative = String(url.dropFirst(prefix.count)).split(separator: "#").first.map(String.init) ?? ""
                guard case .success(let bytes) = LocalFiles.read(LocalFiles.join(directory, relative)) else {
                    return nil
                }
                return try? JSON.parse(bytes)
            }
            return nil
        }
        let validator: Validator
        do {
            validator = try Validator(
                schema: schemaValue, options: SchemaOptions(assertFormat: assertFormat), resolveRemote: resolve)
        } catch {
            Terminal.error("\(schema): bad schema: \(error)")
            throw ExitCodeError.usage
        }
        let value = try Terminal.parseJSON(try Terminal.read(instance), name: instance ?? "stdin")
        let violations = validator.validate(value)
        if violations.isEmpty {
            print("valid")
            return
        }
        for violation in violations {
            print(
                "\(violation.instancePointer.isEmpty ? "(root)" : violation.instancePointer): \(violation.keyword): \(violation.reason)"
            )
        }
        throw ExitCodeError.invalidInput
    }
}
