import Foundation
import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules
import ReshapeSchema
import XCTest

enum Fixture {
    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    static func exampleRules() throws -> RuleSet {
        try rules(path: packageRoot + "/examples/rules")
    }

    static func rules(path: String) throws -> RuleSet {
        switch RuleLoader.load(path: path, environment: [:]) {
        case .success(let ruleSet): return ruleSet
        case .failure(let diagnostics):
            throw Failure(message: diagnostics.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    static func rules(_ text: String) throws -> RuleSet {
        let header = "upstreams:\n  up: { url: \"http://127.0.0.1:1\" }\n"
        switch RuleLoader.load(files: [("test.yaml", header + text)], environment: [:]) {
        case .success(let ruleSet): return ruleSet
        case .failure(let diagnostics):
            throw Failure(message: diagnostics.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// The derived response schemas of a rule set, compiled with its types so that their `$ref`s
/// resolve: each output a route gives must validate.
struct DerivedSchemas {
    let ruleSet: RuleSet
    let catalog: TypeCatalog
    private var validators: [String: Validator] = [:]
    var schemas: [String: JSON] = [:]

    init(_ ruleSet: RuleSet) throws {
        self.ruleSet = ruleSet
        catalog = TypeCatalog(types: ruleSet.types, reserved: [OpenAPIDocument.problemComponent])
        var typeByComponent: [String: String] = [:]
        for (name, component) in catalog.componentNames { typeByComponent[component] = name }
        for route in ruleSet.routes {
            let schema = OpenAPIDocument.responseSchema(of: route, types: catalog)
            schemas[route.name] = schema
            let ruleForm = DerivedSchemas.ruleForm(schema, typeByComponent)
            let set = try SchemaSet(types: ruleSet.types + [(name: "__response", schema: ruleForm)])
            validators[route.name] = set.validator(named: "__response")!
        }
    }

    /// `#/components/schemas/C...` back to `#/types/T...`, the form `SchemaSet` resolves.
    static func ruleForm(_ schema: JSON, _ typeByComponent: [String: String]) -> JSON {
        switch schema {
        case .object(var object):
            for i in object.members.indices {
                if object.members[i].key == "$ref", case .string(let reference) = object.members[i].value,
                    reference.hasPrefix(TypeCatalog.componentPrefix)
                {
                    let rest = reference.dropFirst(TypeCatalog.componentPrefix.count)
                    let component = String(rest.prefix { $0 != "/" })
                    let name = typeByComponent[component] ?? component
                    object.members[i].value = .string(
                        "#/types/" + JSONPointer.escape(name) + rest.dropFirst(component.count))
                } else {
                    object.members[i].value = ruleForm(object.members[i].value, typeByComponent)
                }
            }
            return .object(object)
        case .array(let elements):
            return .array(elements.map { ruleForm($0, typeByComponent) })
        default:
            return schema
        }
    }

    /// Nil when `output` conforms; otherwise why not.
    func violations(of output: JSON, route: String) -> String? {
        let found = validators[route]!.validate(output, maxErrors: 3)
        if found.isEmpty { return nil }
        return "route \(route): \(output.serializedString()) does not match \(schemas[route]!.serializedString()): "
            + found.map(\.description).joined(separator: "; ")
    }
}

/// Runs a route offline the server's way; `followUp` answers each `expand` value.
func runRoute(
    _ route: Route, input: JSON, parameters: [String: String], queryOrder: FirebaseQuery.Order = .key,
    followUp: (String) -> RouteRun.FollowUp
) throws(PipelineError) -> JSON {
    var run = RouteRun(route: route, parameters: parameters, queryOrder: queryOrder)
    var progress: RouteRun.Progress
    if route.isSingleFetch {
        progress = try run.start(OfflineRun.tape(input))
    } else {
        var bodies: [(name: String, body: JSON?)] = []
        for fetch in route.fetches { bodies.append((fetch.name, input.objectMember(fetch.name))) }
        progress = try run.start(RouteRun.fanOutInput(bodies))
    }
    while true {
        switch progress {
        case .done(let output): return output.value
        case .followUps(_, let values):
            var outcomes: [String: RouteRun.FollowUp] = [:]
            for value in values { outcomes[value] = followUp(value) }
            progress = try run.resume(outcomes)
        }
    }
}

extension JSON {
    func objectMember(_ name: String) -> JSON? {
        if case .object(let object) = self { return object[name] }
        return nil
    }

    /// Parses test text; crashes the test on a typo.
    static func text(_ text: String) -> JSON { try! JSON.parse(Array(text.utf8)) }
}
