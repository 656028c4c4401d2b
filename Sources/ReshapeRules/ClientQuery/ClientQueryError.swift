/// Why a client query was refused: 400 `bad-parameter` (naming the parameter and, where it
/// helps, what is allowed) or 400 `bad-cursor`.
package struct ClientQueryError: Error, Sendable, Equatable {
    package enum Code: String, Sendable {
        case badParameter = "bad-parameter"
        case badCursor = "bad-cursor"
    }
    package var code: Code
    /// The query parameter at fault.
    package var name: String
    package var detail: String
    /// The names or values the parameter accepts, when a list says it best.
    package var allowed: [String]

    package init(code: Code, name: String, detail: String, allowed: [String] = []) {
        self.code = code
        self.name = name
        self.detail = detail
        self.allowed = allowed
    }

    static func parameter(_ name: String, _ detail: String, allowed: [String] = []) -> ClientQueryError {
        ClientQueryError(code: .badParameter, name: name, detail: detail, allowed: allowed)
    }
    static func cursor(_ detail: String) -> ClientQueryError {
        ClientQueryError(code: .badCursor, name: "cursor", detail: detail, allowed: [])
    }
}
