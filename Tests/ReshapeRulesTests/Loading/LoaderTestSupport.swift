import ReshapeRules
import XCTest

/// A minimal valid upstream plus routes, so each test writes only the part it is about.
let plainUpstream = """
    upstreams:
      api:
        url: http://127.0.0.1:8081

    """

/// Loads in-memory files and returns the diagnostics as `file:line:column: message` lines,
/// failing the test when the rules unexpectedly load.
func diagnostics(
    _ files: [(name: String, text: String)], environment: [String: String] = [:],
    file: StaticString = #filePath, line: UInt = #line
) -> [String] {
    switch RuleLoader.load(files: files, environment: environment) {
    case .success:
        XCTFail("expected diagnostics, but the rules loaded", file: file, line: line)
        return []
    case .failure(let problems):
        return problems.diagnostics.map(\.description)
    }
}

/// Loads in-memory files that must be valid.
func loaded(
    _ files: [(name: String, text: String)], environment: [String: String] = [:],
    file: StaticString = #filePath, line: UInt = #line
) -> RuleSet? {
    switch RuleLoader.load(files: files, environment: environment) {
    case .success(let ruleSet): return ruleSet
    case .failure(let problems):
        XCTFail("unexpected diagnostics:\n\(problems)", file: file, line: line)
        return nil
    }
}

/// Asserts that exactly one diagnostic starts with `location` and contains `fragment`.
func assertDiagnostic(
    _ lines: [String], at location: String, contains fragment: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    let matches = lines.filter { $0.hasPrefix(location + ": ") && $0.contains(fragment) }
    XCTAssertEqual(
        matches.count, 1, "no '\(location): …\(fragment)…' among:\n\(lines.joined(separator: "\n"))",
        file: file, line: line)
}
