/// One problem in a rule set, located in its file: `users.yaml:12:7: unknown type 'Usr'`.
public struct RuleDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// Every problem found in one load, in file and line order. A rule set with any problem is
/// refused whole: Reshape never serves half a rule set.
public struct RuleDiagnostics: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [RuleDiagnostic]

    public init(_ diagnostics: [RuleDiagnostic]) {
        self.diagnostics = diagnostics.sorted {
            ($0.location.file, $0.location.line, $0.location.column) < (
                $1.location.file, $1.location.line, $1.location.column
            )
        }
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
