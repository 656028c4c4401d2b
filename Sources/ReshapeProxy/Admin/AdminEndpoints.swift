import ReshapeJSON
import ReshapeProblem

/// The answers of `/_reshape/<name>`, as pure logic: the server supplies the state they report.
package enum AdminEndpoints {
    /// `openAPIDocument`: the rule set's OpenAPI document, serialized once per (re)load
    /// (`ServingRules.openAPIDocument`).
    package static func response(
        _ name: String, draining: Bool, rulesDigest: String,
        metricsText: () -> String, openAPIDocument: () -> [UInt8] = { [] }
    ) -> HTTPResponse {
        switch name {
        case "openapi.json":
            return .json(200, openAPIDocument())
        case "live":
            return .json(200, Array(#"{"status":"live"}"#.utf8))
        case "ready":
            if draining { return Problem.shuttingDown.response }
            let body = JSON.object(JSONObject(["status": .string("ready"), "rules": .string(rulesDigest)]))
            return .json(200, body.serialized())
        case "metrics":
            return HTTPResponse(
                status: 200, headers: [.init(name: "Content-Type", value: "text/plain; version=0.0.4")],
                body: Array(metricsText().utf8))
        default:
            return Problem.notFound(path: Router.adminPrefix + name).response
        }
    }
}
