import ArgumentParser
import ReshapeContract
import ReshapeJSON

struct InferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Draft a rule file (types, route, examples) from sample upstream answers.",
        discussion: """
            Recognises a keyed collection (records under push ids, uids or integer keys, also \
            Firebase's array with null holes, and collections of collections) and proposes \
            keyed-to-array; infers the record type as JSON Schema; adds a validate step and each \
            sample as an offline example. In a collection, a small minority of records that break \
            the others' pattern is treated as corrupt (commented constraints; --no-outliers to \
            keep them). Several samples of one endpoint merge. The output passes \
            `reshape check` and `reshape test` as it is; see docs/contract.md. Exit status: 0 ok, \
            1 a sample is not JSON, 2 a usage mistake.

              curl -s https://my-app.firebaseio.com/users.json > users.json
              reshape infer users.json --name User > rules/users.yaml
              reshape infer a.json b.json --upstream firebase --path /users.json \\
                --request "GET /users"
            """)

    @Argument(help: ArgumentHelp("Sample upstream answers (JSON) of one endpoint.", valueName: "sample"))
    var samples: [String]

    @Option(
        name: .long,
        help: ArgumentHelp("The record type's name (default: the route's name, singular).", valueName: "type"))
    var name: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The upstream's name (default: api); a placeholder declaration is written.", valueName: "name"))
    var upstream: String?

    @Option(
        name: .long, help: ArgumentHelp("The upstream path (default: the request path + .json).", valueName: "path"))
    var path: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The client request, e.g. \"GET /users\" (default: GET /<sample file name>).", valueName: "request"))
    var request: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The field that receives each record's key (default: objectId).", valueName: "field"))
    var key: String?

    @Flag(name: .long, help: "Propose `enum` for strings with a few repeated values.")
    var enums = false

    @Flag(
        name: .customLong("no-outliers"),
        help: """
            Do not read a small minority of odd records (missing a member, "" or a negative number \
            where the rest have values, another type, an integer as a string) as corrupt: infer \
            only what every record has. See docs/contract.md.
            """)
    var noOutliers = false

    func run() throws {
        try withExitCodes {
            guard !samples.isEmpty else {
                Terminal.error("reshape: infer needs at least one sample file")
                throw ExitCodeError.usage
            }
            var options = RuleDraft.Options()
            options.typeName = name
            options.upstream = upstream
            options.path = path
            options.request = request
            options.key = key
            options.enums = enums
            options.outliers = !noOutliers
            options.sampleName = samples[0]
            let values = try samples.map { try Terminal.parseJSON(try Terminal.read($0), name: $0) }
            do throws(RuleDraft.Failure) {
                Terminal.write(Array(try RuleDraft(samples: values, options: options).yaml().utf8))
            } catch {
                Terminal.error(error.description)
                throw ExitCodeError.usage
            }
        }
    }
}
