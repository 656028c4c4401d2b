import ReshapeJSON
import ReshapeOpenAPI
import ReshapeProblem
import ReshapeRules

/// A rule set prepared for serving: its router and each route's redactor, built once per
/// (re)load and shared read-only by every worker.
package final class ServingRules: Sendable {
    package let ruleSet: RuleSet
    package let router: Router
    /// Every secret of every upstream, for log lines that are not about one upstream.
    package let allSecrets: Redactor
    /// Per route: the secrets of every upstream it fetches from and of its own headers.
    let routeRedactors: [String: Redactor]
    /// The OpenAPI document of these rules (`/_reshape/openapi.json`), built with the rules
    /// rather than per request. No `servers`: clients use the origin they fetched it from.
    package let openAPIDocument: [UInt8]
    /// Routes whose answer was kept out of the cache by its upstreams' directives and said so
    /// in the log: once per route for these rules (a reload makes new rules, and says it again).
    private let cacheSkipsNoticed = Locked<Set<String>>([])
    /// Each route's CORS policy by name (`ServingRules+CORS.swift`); a route not here has none.
    let corsPolicies: [String: CORSPolicy]
    /// The last answers' tapes client views were made of (`client-query`).
    let viewTapes = ViewTapes()

    package init(_ ruleSet: RuleSet) {
        var ruleSet = ruleSet
        // Client queries typed by the answers' shapes; rules loaded with `loadServable` are
        // already, and were refused if any was wrong.
        _ = ClientQueryShapes.resolve(&ruleSet)
        self.ruleSet = ruleSet
        router = Router(routes: ruleSet.routes)
        allSecrets = Redactor(secrets: ruleSet.upstreams.values.flatMap(\.secrets))
        var routeRedactors: [String: Redactor] = [:]
        for route in ruleSet.routes {
            routeRedactors[route.name] = Redactor(secrets: ServingRules.secrets(of: route, in: ruleSet))
        }
        self.routeRedactors = routeRedactors
        corsPolicies = ServingRules.corsPolicies(ruleSet)
        openAPIDocument = OpenAPIDocument.build(ruleSet).serialized()
    }

    package enum Decision: Sendable {
        case respond(HTTPResponse, route: String?, errorCode: String?)
        case route(SharedRoute, parameters: [String: String])
        case admin(String)
        /// A browser's preflight on a path the routes serve, answered without an upstream.
        case preflight(CORSPreflight)
    }

    /// What to do with a request: answer at once (an error), run a route, or serve an admin
    /// endpoint. A listener serving only `.admin` endpoints is never handed a route.
    package func decide(_ request: HTTPRequest, endpoints: Endpoints = .all) -> Decision {
        if let preflight = corsPreflight(request, endpoints: endpoints) { return .preflight(preflight) }
        switch router.match(method: request.method, path: request.path, endpoints: endpoints) {
        case .admin(let name):
            return .admin(name)
        case .badRequest(let detail):
            return .respond(Problem.badRequest(detail).response, route: nil, errorCode: "bad-request")
        case .notFound:
            return .respond(Problem.notFound(path: String(request.path)).response, route: nil, errorCode: "no-route")
        case .methodNotAllowed(let allowed):
            return .respond(
                Problem.methodNotAllowed(request.method, allowed: allowed).response, route: nil,
                errorCode: "method-not-allowed")
        case .route(let route, let parameters):
            return .route(route, parameters: parameters)
        }
    }

    /// The route's own secrets and those of every upstream it (or an `expand`) fetches from.
    static func secrets(of route: Route, in ruleSet: RuleSet) -> [String] {
        var names: [String] = []
        for name in route.fetches.map(\.upstream) + route.stages.map(\.expand.fetch.upstream)
        where !names.contains(name) {
            names.append(name)
        }
        return route.secrets + names.flatMap { ruleSet.upstreams[$0]?.secrets ?? [] }
    }
}

extension ServingRules {
    /// True the first time `route`'s answer is kept out of the cache by its upstreams'
    /// directives with these rules; false after.
    package func firstCacheSkip(route: String) -> Bool {
        cacheSkipsNoticed.withLock { $0.insert(route).inserted }
    }
}
