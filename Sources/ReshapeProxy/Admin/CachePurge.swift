import ReshapeJSON
import ReshapeProblem
import ReshapeRules

/// `POST /_reshape/cache/purge?route=NAME`: drops every answer the process's cache keeps for a
/// route. Only on the admin listener, or, without one, only to a client on a loopback address
/// (`operatorMayAsk`); everyone else is told there is no such path.
enum CachePurge {
    /// The endpoint's name under `/_reshape/`.
    static let name = "cache/purge"

    /// The answer to `request`, purging `cache` when it may. `routes`: the rule set's, by which
    /// the route is named.
    static func response(
        _ request: HTTPRequest, operatorMayAsk: Bool, routes: [Route], cache: ResponseCache?
    ) -> HTTPResponse {
        guard operatorMayAsk else { return Problem.notFound(path: String(request.path)).response }
        guard request.method == "POST" else {
            return Problem.methodNotAllowed(request.method, allowed: ["POST"]).response
        }
        var route: String?
        for pair in request.rawQuery.split(separator: "&") where pair.hasPrefix("route=") {
            route = PercentEncoding.decode(pair.dropFirst("route=".count), plusIsSpace: true)
        }
        guard let route, !route.isEmpty else {
            return Problem.badRequest("name the route to purge: ?route=NAME").response
        }
        guard routes.contains(where: { $0.name == route }) else {
            return Problem(
                status: 404, code: "no-such-route", title: "No such route", detail: "no route is named '\(route)'"
            ).response
        }
        let purged = cache?.purge(route: route) ?? 0
        return .json(
            200, JSON.object(JSONObject(["route": .string(route), "purged": .number(JSONNumber(purged))])).serialized())
    }
}
