import ArgumentParser
import ReshapeContract
import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules

struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Print the OpenAPI 3.1 document of a rule set.",
        discussion: """
            One path per route with its method, path parameters from the captures, the query \
            parameters it forwards, the request body's type, and the response schema derived from \
            the route's transform (conservatively: where a step cannot know what it produces, the \
            schema allows more). Rule types become components/schemas; errors refer to one shared \
            problem+json schema. The server answers the same document (without servers) at \
            GET /_reshape/openapi.json. See docs/openapi.md. Exit status: 0 ok, 1 the rules have \
            problems, 2 a usage mistake.

              reshape openapi --rules examples/rules > openapi.json
              reshape openapi --rules examples/rules --server https://api.example.com --yaml
            """)

    @Option(name: .long, help: ArgumentHelp("A rules directory or a single rule file.", valueName: "path"))
    var rules: String

    @Option(name: .long, help: ArgumentHelp("The API's base URL, as the document's `servers` entry.", valueName: "url"))
    var server: String?

    @Option(name: .long, help: "The document's info.title.")
    var title = OpenAPIDocument.Options().title

    @Option(name: .long, help: "The document's info.version (the API's version, not Reshape's).")
    var version = OpenAPIDocument.Options().version

    @Flag(name: .long, help: "Print YAML instead of JSON.")
    var yaml = false

    func run() throws {
        try withExitCodes {
            let ruleSet = try Terminal.loadRules(rules)
            let document = OpenAPIDocument.build(
                ruleSet, options: .init(title: title, version: version, serverURL: server))
            if yaml {
                Terminal.write(Array(YAMLWriter.write(document).utf8))
            } else {
                Terminal.write(document.serialized(pretty: true) + [UInt8(ascii: "\n")])
            }
        }
    }
}
