/// One problem in a rule set, located in its file: `users.yaml:12:7: unknown type 'Usr'`.
package struct RuleDiagnostic: Sendable, Equatable, CustomStringConvertible {
    package var location: SourceLocation
    package var message: String

    package init(location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    package var description: String { "\(location): \(message)" }
}

/// Every problem found in one load, in file and line order. A rule set with any problem is
/// refused whole: Reshape never serves half a rule set.
package struct RuleDiagnostics: Error, Sendable, CustomStringConvertible {
    package var diagnostics: [RuleDiagnostic]

    package init(_ diagnostics: [RuleDiagnostic]) {
        self.diagnostics = diagnostics.sorted {
            ($0.location.file, $0.location.line, $0.location.column) < (
                $1.location.file, $1.location.line, $1.location.column
            )
        }
    }

    package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
