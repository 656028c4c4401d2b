import ReshapeRules

/// The rules' side of CORS: which policy a route answers by, and what a preflight gets.
extension ServingRules {
    /// Each route's policy by name (its own, the top level's, or none), worked out once per load.
    static func corsPolicies(_ ruleSet: RuleSet) -> [String: CORSPolicy] {
        var policies: [String: CORSPolicy] = [:]
        for route in ruleSet.routes {
            if let policy = route.cors.policy(topLevel: ruleSet.cors) { policies[route.name] = policy }
        }
        return policies
    }

    /// What this request's answers add for a browser, on `route`.
    package func corsAnswer(_ route: Route, _ request: HTTPRequest) -> CORSAnswer {
        CORSAnswer.decide(corsPolicies[route.name], origin: request.header("Origin"))
    }

    /// The answer to a preflight on a path the routes serve; nil when the request is no
    /// preflight (an `OPTIONS` without `Origin` or `Access-Control-Request-Method` goes on to
    /// the router, as any other) or its path is served by no route, or is an admin endpoint
    /// (never CORS): those are answered as they would be without CORS.
    func corsPreflight(_ request: HTTPRequest, endpoints: Endpoints) -> CORSPreflight? {
        // Rules without `cors` change nothing: such an OPTIONS is a 405 as before.
        guard !corsPolicies.isEmpty, request.method == "OPTIONS", let origin = request.header("Origin"),
            let requested = request.header("Access-Control-Request-Method"),
            !request.path.hasPrefix(Router.adminPrefix)
        else { return nil }
        // No route has OPTIONS: the router lists the path's methods, or says no route serves it.
        guard
            case .methodNotAllowed(let methods) = router.match(
                method: "OPTIONS", path: request.path, endpoints: endpoints)
        else { return nil }
        func reached(_ method: String) -> Route? {
            if case .route(let route, _) = router.match(method: method, path: request.path, endpoints: endpoints) {
                return route.route
            }
            return nil
        }
        let byMethod = methods.map { method in
            (method: method, policy: reached(method).flatMap { corsPolicies[$0.name] })
        }
        let target = reached(requested).map { (route: $0, policy: corsPolicies[$0.name]) }
        return CORSPreflight.answer(
            origin: origin, requestedHeaders: request.joinedHeader("Access-Control-Request-Headers"),
            methods: byMethod, target: target, limits: ruleSet.limits)
    }
}
