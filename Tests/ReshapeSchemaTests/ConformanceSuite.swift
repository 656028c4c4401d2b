import Foundation
import ReshapeJSON
import ReshapeSchema

/// Runs files of the official JSON-Schema-Test-Suite (draft 2020-12), serving
/// `http://localhost:1234/...` refs from its `remotes/` folder.
struct ConformanceSuite {
    struct Outcome {
        var passed = 0
        var failures: [String] = []
    }

    let root: URL

    /// The pinned suite's size (jsonschema 4.26.0's copy, scripts/fetch-conformance.sh): the
    /// required draft 2020-12 files and tests, and the optional instances the tape checks.
    static let requiredFiles = 46
    static let requiredTests = 1257
    static let optionalInstancesAtLeast = 600

    /// The command that puts the pinned suite where `locate` looks.
    static let fetchCommand = "scripts/fetch-conformance.sh"

    /// Why `locate` found nothing, for the tests' failure messages.
    static let notFound = "json-schema-test-suite not found: run \(fetchCommand) (or set RESHAPE_CONFORMANCE_DIR)"

    /// `RESHAPE_CONFORMANCE_DIR`, else the copy `scripts/fetch-conformance.sh` left in
    /// `.build-conformance/` of this package.
    static func locate(file: String = #filePath) -> ConformanceSuite? {
        if let dir = ProcessInfo.processInfo.environment["RESHAPE_CONFORMANCE_DIR"], !dir.isEmpty {
            return ConformanceSuite(root: URL(fileURLWithPath: dir))
        }
        let packageRoot = URL(fileURLWithPath: file)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let fetched = packageRoot.appendingPathComponent(".build-conformance/json-schema-test-suite")
        guard FileManager.default.fileExists(atPath: fetched.appendingPathComponent("tests").path) else { return nil }
        return ConformanceSuite(root: fetched)
    }

    var testsDirectory: URL { root.appendingPathComponent("tests/draft2020-12") }

    func jsonFiles(in relative: String) -> [String] {
        let dir = testsDirectory.appendingPathComponent(relative)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { relative.isEmpty ? $0 : relative + "/" + $0 }
    }

    static func parse(_ url: URL) -> JSON? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSON.parse([UInt8](data))
    }

    /// Serves the suite's remotes the way its README says: `http://localhost:1234/x` is `remotes/x`.
    var remotes: @Sendable (String) -> JSON? {
        let remotesDirectory = root.appendingPathComponent("remotes")
        return { uri in
            let prefix = "http://localhost:1234/"
            guard uri.hasPrefix(prefix) else { return nil }
            return ConformanceSuite.parse(remotesDirectory.appendingPathComponent(String(uri.dropFirst(prefix.count))))
        }
    }

    /// Runs one test file; each failing test is described as "file / group / test: why".
    func run(_ file: String, options: SchemaOptions = .init()) -> Outcome {
        var outcome = Outcome()
        guard case .array(let groups)? = Self.parse(testsDirectory.appendingPathComponent(file)) else {
            outcome.failures.append("\(file): cannot read or parse")
            return outcome
        }
        for case .object(let group) in groups {
            guard case .string(let groupName)? = group["description"], let schema = group["schema"],
                case .array(let tests)? = group["tests"]
            else { continue }
            let validator: Validator
            do {
                validator = try Validator(schema: schema, options: options, resolveRemote: remotes)
            } catch {
                for case .object(let test) in tests {
                    outcome.failures.append(
                        "\(file) / \(groupName) / \(test["description"].map(Self.text) ?? "?"): schema did not compile: \(error)"
                    )
                }
                continue
            }
            for case .object(let test) in tests {
                guard case .string(let name)? = test["description"], let data = test["data"],
                    case .bool(let expected)? = test["valid"]
                else { continue }
                let fast = validator.isValid(data)
                let violations = validator.validate(data)
                if fast == expected && violations.isEmpty == expected {
                    outcome.passed += 1
                } else {
                    let detail = fast != (violations.isEmpty) ? " (isValid and validate disagree)" : ""
                    outcome.failures.append(
                        "\(file) / \(groupName) / \(name): expected \(expected ? "valid" : "invalid")\(detail)")
                }
            }
        }
        return outcome
    }

    static func text(_ value: JSON) -> String {
        if case .string(let s) = value { return s }
        return value.serializedString()
    }
}
