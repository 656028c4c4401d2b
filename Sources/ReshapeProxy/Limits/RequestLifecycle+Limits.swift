import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// A `limit:` route's rate limits: checked before the token for keys a request carries, after
/// it for `auth.*` keys. Every answer of the route says where the client stands
/// (`RateLimit-Policy`, `RateLimit`); a refused request is answered 429 and fetches nothing,
/// a cached answer included. With replicas sharing their limits, the decision is Redis's
/// (`Action.checkLimits`); when Redis does not answer in time, this process's table decides.
extension RequestLifecycle {
    /// The route's policies of `phase`, then what comes after them: the token (before it), or
    /// the cache and the fetches (after it). `cacheWaiter` is as for `begin`.
    func limitThenGoOn(
        _ match: RouteMatch, phase: RateLimiter.Phase, now: Double, cacheWaiter: () -> ResponseCache.Waiter?
    ) -> Action {
        guard !match.route.limit.isEmpty, let limiter = settings.limits else {
            return goOn(match, after: phase, now: now, cacheWaiter: cacheWaiter)
        }
        // A key given twice is refused before anything is counted, checked or fetched.
        if case .beforeAuth = phase,
            let detail = limiter.repeatedKey(match.route, policies: rules.ruleSet.limits, request: request)
        {
            let problem = Problem.badRequest(detail)
            return respond(problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code))
        }
        let entries = limiter.entries(
            match.route, policies: rules.ruleSet.limits, phase: phase, request: request,
            parameters: match.parameters, shared: settings.sharesLimits)
        if entries.isEmpty { return goOn(match, after: phase, now: now, cacheWaiter: cacheWaiter) }
        if settings.sharesLimits {
            state = .awaitingLimit(match, phase, entries)
            return .checkLimits(SharedLimitCheck(entries))
        }
        return decided(
            match, phase, entries, limiter.decideLocally(entries, now: now), now: now, cacheWaiter: cacheWaiter)
    }

    /// Redis's answer to `Action.checkLimits`: the script's integers, or nil when it gave none
    /// in time (or none that made sense); then this process's table decides, and it is counted.
    package func limitsChecked(
        _ reply: [Int]?, now: Double, cacheWaiter: @autoclosure () -> ResponseCache.Waiter? = nil
    ) -> Action {
        guard case .awaitingLimit(let match, let phase, let entries) = state, let limiter = settings.limits else {
            impossible("limitsChecked", in: stateName)
        }
        let shared = reply.flatMap { SharedLimitCheck.verdicts($0, count: entries.count) }
        if shared == nil { limitFallbacks += 1 }
        let verdicts = shared ?? limiter.decideLocally(entries, now: now)
        return decided(match, phase, entries, verdicts, now: now, cacheWaiter: cacheWaiter)
    }

    private func decided(
        _ match: RouteMatch, _ phase: RateLimiter.Phase, _ entries: [RateLimiter.Entry],
        _ verdicts: [RateLimiter.Verdict], now: Double, cacheWaiter: () -> ResponseCache.Waiter?
    ) -> Action {
        let check = RateLimiter.check(entries, verdicts)
        limitPolicyItems += check.policyItems
        limitStateItems += check.stateItems
        guard let refusal = check.refusal else { return goOn(match, after: phase, now: now, cacheWaiter: cacheWaiter) }
        rateLimited = FinishedRequest.RateLimited(route: match.route.name, policy: refusal.policy)
        let problem = Problem.rateLimited(policy: refusal.policy, retryAfterSeconds: refusal.retryAfterSeconds)
        return respond(problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code))
    }

    private func goOn(
        _ match: RouteMatch, after phase: RateLimiter.Phase, now: Double, cacheWaiter: () -> ResponseCache.Waiter?
    ) -> Action {
        switch phase {
        case .beforeAuth: authorizeThenProceed(match, now: now, cacheWaiter: cacheWaiter)
        case .afterAuth: proceed(match, now: now, cacheWaiter: cacheWaiter)
        }
    }

    /// The claims the route's `auth.*` policies are keyed by.
    func limitClaims(_ route: Route) -> [String] {
        route.limit.compactMap { name in
            if case .auth(let claim)? = rules.ruleSet.limits[name]?.key { return claim }
            return nil
        }
    }

    /// `RateLimit-Policy` and `RateLimit` for the policies checked so far: on every answer, and
    /// on a live stream's head.
    var limitHeaders: [NameValue] {
        guard !limitPolicyItems.isEmpty else { return [] }
        return [
            NameValue(name: "RateLimit-Policy", value: limitPolicyItems.joined(separator: ", ")),
            NameValue(name: "RateLimit", value: limitStateItems.joined(separator: ", ")),
        ]
    }

    func withLimitHeaders(_ response: HTTPResponse) -> HTTPResponse {
        guard !limitPolicyItems.isEmpty else { return response }
        var response = response
        response.headers += limitHeaders
        return response
    }
}
