import ReshapeJSON
import ReshapeSchema

/// What an operation may refer to while it is compiled.
package struct OperationCompileContext: Sendable {
    /// The rule files' types, the only names a `validate` step may use (nil: there are none).
    package var types: SchemaSet?
    /// Captures of the route's request template (`{id}`), the only names a `set` template may use.
    package var parameterNames: Set<String>
    /// Whether the steps run on the answer to a forwarded Firebase query (a route's own
    /// transform, with `firebase-query: true`): only there may `keyed-to-array` say `order: query`.
    package var firebaseQuery: Bool
    /// The route has `auth`: a `set` template may name `{auth.<claim>}`; each one named is noted
    /// in `claimsUsed`, since the claims a route uses are parameters of its requests and part of
    /// its cache key.
    package var authClaims: Bool
    package var claimsUsed: ClaimsUsed?

    package init(
        types: SchemaSet? = nil, parameterNames: Set<String> = [], firebaseQuery: Bool = false,
        authClaims: Bool = false,
        claimsUsed: ClaimsUsed? = nil
    ) {
        self.types = types
        self.parameterNames = parameterNames
        self.firebaseQuery = firebaseQuery
        self.authClaims = authClaims
        self.claimsUsed = claimsUsed
    }
}

/// The `{auth.<claim>}` names a route's steps use, gathered while they compile (one route's
/// compile, on one thread).
package final class ClaimsUsed: @unchecked Sendable {
    package private(set) var names: Set<String> = []
    package init() {}
    func note(_ parameters: [String]) {
        for name in parameters { if let claim = RouteAuth.claim(ofParameter: name) { names.insert(String(claim)) } }
    }
}

/// A mistake in one transform step. `pointer` is a JSON Pointer relative to the step value
/// (`/keyed-to-array/order`, or `/each/2/rename` for nested steps) so the loader can turn it
/// into file:line:column.
package struct OperationConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var pointer: String

    package init(message: String, pointer: String) {
        self.message = message
        self.pointer = pointer
    }

    package var description: String { "\(pointer.isEmpty ? "(step)" : pointer): \(message)" }

    /// The same error seen from one level up: `prefix` is the pointer of the value it sits in.
    func nested(under prefix: String) -> OperationConfigError {
        OperationConfigError(message: message, pointer: prefix + pointer)
    }
}
