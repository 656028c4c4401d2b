import ReshapeProblem
import ReshapeRules

/// A `limit:` route's rate limits: checked before the token for keys a request carries, after
/// it for `auth.*` keys. Every answer of the route says where the client stands
/// (`RateLimit-Policy`, `RateLimit`); a refused request is answered 429 and fetches nothing,
/// a cached answer included.
extension RequestLifecycle {
    /// The route's policies of `phase`: nil when the request may go on, else its 429.
    func checkLimits(_ match: RouteMatch, phase: RateLimiter.Phase, now: Double) -> Action? {
        guard !match.route.limit.isEmpty, let limiter = settings.limits else { return nil }
        let check = limiter.check(
            match.route, policies: rules.ruleSet.limits, phase: phase, request: request,
            parameters: match.parameters, now: now)
        limitPolicyItems += check.policyItems
        limitStateItems += check.stateItems
        guard let refusal = check.refusal else { return nil }
        rateLimited = FinishedRequest.RateLimited(route: match.route.name, policy: refusal.policy)
        let problem = Problem.rateLimited(policy: refusal.policy, retryAfterSeconds: refusal.retryAfterSeconds)
        return respond(problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code))
    }

    /// The claims the route's `auth.*` policies are keyed by.
    func limitClaims(_ route: Route) -> [String] {
        route.limit.compactMap { name in
            if case .auth(let claim)? = rules.ruleSet.limits[name]?.key { return claim }
            return nil
        }
    }

    /// `RateLimit-Policy` and `RateLimit` for the policies checked so far.
    func withLimitHeaders(_ response: HTTPResponse) -> HTTPResponse {
        guard !limitPolicyItems.isEmpty else { return response }
        var response = response
        response.headers.append(NameValue(name: "RateLimit-Policy", value: limitPolicyItems.joined(separator: ", ")))
        response.headers.append(NameValue(name: "RateLimit", value: limitStateItems.joined(separator: ", ")))
        return response
    }
}
