import ReshapeProblem

extension Problem {
    /// 401 with RFC 6750's challenge: `error="invalid_token"` when a token was sent and
    /// refused, no `error` when none was (§3.1). The detail is generic: why a token failed goes
    /// to the log, where the token never does.
    package static func unauthenticated(tokenSent: Bool) -> Problem {
        var problem = Problem(
            status: 401, code: "unauthenticated", title: "Unauthenticated",
            detail: tokenSent
                ? "the bearer token is not valid for this route" : "this route needs an Authorization: Bearer token")
        let challenge = "Bearer realm=\"reshape\"" + (tokenSent ? ", error=\"invalid_token\"" : "")
        problem.extraHeaders = [Problem.Header(name: "WWW-Authenticate", value: challenge)]
        return problem
    }

    /// 403: the token is valid, but the route needs a claim it does not carry (or carries with
    /// another value).
    package static func forbidden(claim: String) -> Problem {
        Problem(
            status: 403, code: "forbidden", title: "Forbidden",
            detail: "the token's claim '\(claim)' does not allow this route")
    }

    /// The last event of a live stream on an `auth` route when its token's `exp` passes: the
    /// client reconnects with a fresh token.
    package static let tokenExpired = Problem(
        status: 401, code: "token-expired", title: "Token expired",
        detail: "the bearer token this stream was opened with has expired; reconnect with a fresh one")

    /// 503: the verifier's key set could not be fetched, and none is in hand.
    package static let authUnavailable = Problem(
        status: 503, code: "auth-unavailable", title: "Authentication unavailable",
        detail: "the keys that verify tokens could not be fetched; retry later")
}
