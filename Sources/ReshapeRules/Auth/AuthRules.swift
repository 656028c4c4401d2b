import ReshapeAuth
import ReshapeJSON

/// A verifier under the top-level `auth:` key: where its key set is published and what a
/// token it accepts must say.
package struct AuthVerifierRule: Sendable {
    package var name: String
    /// Where the JWKS is fetched from: an upstream of its own (scheme, host, port, base path),
    /// so it gets the upstreams' TLS, timeouts and body limit.
    package var jwks: Upstream
    /// The key set's path under `jwks` (with its query, if the URL had one).
    package var jwksPath: String
    package var verifier: TokenVerifier
    package var location: SourceLocation

    package init(name: String, jwks: Upstream, jwksPath: String, verifier: TokenVerifier, location: SourceLocation) {
        self.name = name
        self.jwks = jwks
        self.jwksPath = jwksPath
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
}
