import ReshapeAuth
import ReshapeJSON

/// A verifier under the top-level `auth:` key: where its key set is published and what a
/// token it accepts must say.
package struct AuthVerifierRule: Sendable {
    package var name: String
    /// Where the JWKS is fetched from: an upstream of its own whose base path is the key set's,
    /// so it gets the upstreams' TLS verification, timeouts and body limit.
    package var jwks: Upstream
    package var verifier: TokenVerifier
    package var location: SourceLocation

    package init(name: String, jwks: Upstream, verifier: TokenVerifier, location: SourceLocation) {
        self.name = name
        self.jwks = jwks
        self.verifier = verifier
        self.location = location
    }
}

/// A route's `auth:`: the verifier that checks its requests' bearer tokens, the claims they must
/// carry, and the claims its templates read.
package struct RouteAuth: Sendable {
    /// One `require:` member: the claim must be present and equal to `value`.
    package struct Requirement: Sendable {
        package var claim: String
        package var value: JSON
        package init(claim: String, value: JSON) {
            self.claim = claim
            self.value = value
        }
    }

    package var verifier: String
    package var require: [Requirement]
    /// Every claim `{auth.<claim>}` names in the route's templates, sorted: each is a path
    /// parameter `auth.<claim>` once the token is verified, and part of the cache key.
    package var claims: [String]

    package init(verifier: String, require: [Requirement] = [], claims: [String] = []) {
        self.verifier = verifier
        self.require = require
        self.claims = claims
    }

    /// The prefix of a template parameter that names a verified claim.
    package static let parameterPrefix = "auth."

    /// The claim a template parameter names (`auth.sub` → `sub`), nil for a path capture.
    package static func claim(ofParameter name: String) -> Substring? {
        name.hasPrefix(parameterPrefix) ? name.dropFirst(parameterPrefix.count) : nil
    }
}

/// What a claim named in a template (`{auth.<claim>}`) may be.
enum AuthClaimName {
    /// Letters, digits, `_` and `-`, starting with a letter or `_`: every registered claim and the
    /// usual private ones (`user_id`, `email_verified`).
    static func isValid(_ claim: Substring) -> Bool {
        guard let first = claim.first, first.isASCII, first.isLetter || first == "_" else { return false }
        return claim.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    /// Why `{auth.<claim>}` cannot be used here; nil when it can.
    static func problem(_ claim: Substring, routeHasAuth: Bool) -> String? {
        if !isValid(claim) { return "is not a valid claim name (letters, digits, '_' and '-')" }
        if !routeHasAuth { return "names a verified token's claim, but the route has no `auth`" }
        return nil
    }
}
