import ReshapeAuth
import ReshapeProblem
import ReshapeRules
import ReshapeStateMachines

/// An `auth` route's bearer token, checked before the request looks anything up or fetches.
extension RequestLifecycle {
    /// The verifier's keys (nil: none could be fetched): the token is checked with them at
    /// `unixSeconds`. Accepted, the request goes on with the claims its templates name as
    /// `auth.<claim>` parameters; refused, it is answered 401 or 403. A token naming a key the
    /// set does not have asks once for the keys again (`Action.lookUpKeys`, `refetch`): they
    /// may have rotated. `cacheWaiter` is as for `begin`.
    package func keysFound(
        _ keys: KeySet?, unixSeconds: Double, now: Double,
        cacheWaiter: @autoclosure () -> ResponseCache.Waiter? = nil
    ) -> Action {
        guard case .awaitingKeys(let match, let refetched) = state, let auth = match.route.auth,
            let rule = rules.ruleSet.verifiers[auth.verifier]
        else { impossible("keysFound", in: stateName) }
        guard let keys else {
            authCheck = FinishedRequest.AuthCheck(verifier: auth.verifier, result: "unavailable")
            return respond(
                Problem.authUnavailable.response,
                AnswerRecord(routeName: match.route.name, errorCode: Problem.authUnavailable.code))
        }
        var outcome = RequestAuthorization.check(
            authorization: request.header("Authorization"), route: auth, verifier: rule.verifier, keys: keys,
            unixSeconds: unixSeconds, limitClaims: limitClaims(match.route))
        if case .unknownKey = outcome {
            if !refetched {
                state = .awaitingKeys(match, refetched: true)
                return .lookUpKeys(rule, refetch: true, armTimer: nil)
            }
            outcome = RequestAuthorization.unknownKeyRefused()
        }
        switch outcome {
        case .accepted(let claims, let expiresAt, let limitValues):
            authCheck = FinishedRequest.AuthCheck(verifier: auth.verifier, result: "ok")
            // Accepted until `exp` plus the leeway, so a stream lasts as long.
            tokenExpiresAt = expiresAt + rule.verifier.leewaySeconds
            let parameters = match.parameters.merging(claims) { _, claim in claim }
            // Limits keyed by a claim only now: an unauthenticated request gets 401, never a 429.
            return limitThenGoOn(
                RouteMatch(route: match.shared, parameters: parameters), phase: .afterAuth(claims: limitValues),
                now: now, cacheWaiter: cacheWaiter)
        case .refused(let problem, let result, let reason):
            authCheck = FinishedRequest.AuthCheck(verifier: auth.verifier, result: result)
            authRefusal = reason
            return respond(problem.response, AnswerRecord(routeName: match.route.name, errorCode: problem.code))
        case .unknownKey:
            impossible("keysFound with an unknown key after a refetch", in: stateName)
        }
    }
}
