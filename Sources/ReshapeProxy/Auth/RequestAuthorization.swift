import ReshapeAuth
import ReshapeJSON
import ReshapeProblem
import ReshapeRules

/// Whether a request may use an `auth` route: its bearer token checked by the route's verifier
/// with the keys in hand at `unixSeconds`, the route's `require:` claims compared, and the
/// claims its templates name made into `auth.<claim>` parameters. Pure: the keys and the
/// time come in.
package enum RequestAuthorization {
    package enum Outcome {
        /// The token passed: the parameters to add to the path captures, when it expires, and
        /// the text of each claim in `limitClaims` ("" when missing: one shared key).
        case accepted(parameters: [String: String], expiresAt: Double, limitValues: [String: String] = [:])
        /// 401 or 403; `result` is the metric's label, `reason` what the log says (never the token).
        case refused(Problem, result: String, reason: String)
        /// No key of the set has the token's `kid`: the keys may have rotated.
        case unknownKey
    }

    package static func check(
        authorization: String?, route: RouteAuth, verifier: TokenVerifier, keys: KeySet, unixSeconds: Double,
        limitClaims: [String] = []
    ) -> Outcome {
        let token: Substring
        switch TokenVerifier.bearerToken(authorization) {
        case .success(let found): token = found
        case .failure(let failure): return refused(failure, tokenSent: false)
        }
        let verified: VerifiedToken
        switch verifier.verify(token, keys: keys, now: unixSeconds) {
        case .success(let passed): verified = passed
        case .failure(.unknownKey): return .unknownKey
        case .failure(let failure): return refused(failure, tokenSent: true)
        }
        for requirement in route.require where !matches(verified.claims[requirement.claim], requirement.value) {
            return .refused(
                .forbidden(claim: requirement.claim), result: "forbidden",
                reason: "claim \(requirement.claim) does not have the required value")
        }
        var parameters: [String: String] = [:]
        for claim in route.claims {
            guard let text = verified.claimText(claim), !text.isEmpty else {
                return .refused(
                    .forbidden(claim: claim), result: "forbidden",
                    reason: "claim \(claim) is missing or not a string, number or boolean")
            }
            parameters[RouteAuth.parameterPrefix + claim] = text
        }
        var limitValues: [String: String] = [:]
        for claim in limitClaims { limitValues[claim] = verified.claimText(claim) ?? "" }
        return .accepted(parameters: parameters, expiresAt: verified.expiresAt, limitValues: limitValues)
    }

    /// After the keys were fetched again for the token's `kid`, and it is still not there.
    package static func unknownKeyRefused() -> Outcome {
        refused(.unknownKey, tokenSent: true)
    }

    private static func refused(_ failure: AuthFailure, tokenSent: Bool) -> Outcome {
        .refused(.unauthenticated(tokenSent: tokenSent), result: failure.metricLabel, reason: failure.reason)
    }

    /// A `require:` value against the claim: same type and value (numbers by value, strings by
    /// code points).
    static func matches(_ claim: JSON?, _ required: JSON) -> Bool {
        switch (claim, required) {
        case (.string(let a)?, .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.bool(let a)?, .bool(let b)): a == b
        case (.number(let a)?, .number(let b)): a == b
        default: false
        }
    }
}
