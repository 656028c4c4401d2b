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

    package init(types: SchemaSet? = nil, parameterNames: Set<String> = [], firebaseQuery: Bool = false) {
        self.types = types
        self.parameterNames = parameterNames
        self.firebaseQuery = firebaseQuery
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
