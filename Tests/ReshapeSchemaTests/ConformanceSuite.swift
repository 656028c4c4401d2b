import Foundation
import ReshapeJSON
import ReshapeSchema

/// Runs files of the official JSON-Schema-Test-Suite (draft 2020-12) from `shared/`, serving
/// `http://localhost:1234/...` refs from its `remotes/` folder.
struct ConformanceSuite {
    struct Outcome {
        var passed = 0
        var failures: [String] = []
    }

    let root: URL

    /// `RESHAPE_CONFORMANCE_DIR`, else `shared/conformance/json-schema-test-suite` in the
    /// nearest ancestor of this file that has it (CI keeps `shared/` beside the clone).
    static func locate(file: String = #filePath) -> ConformanceSuite? {
        let manager = FileManager.default
        if let dir = ProcessInfo.processInfo.environment["RESHAPE_CONFORMANCE_DIR"], !dir.isEmpty {
            return ConformanceSuite(root: URL(fileURLWithPath: dir))
        }
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/conformance/json-schema-test-suite")
            if manager.fileExists(atPath: candidate.appendingPathComponent("tests").path) {
                return ConformanceSuite(root: candidate)
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
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
                  case .array(let tests)? = group["tests"] else { continue }
            let validator: Validator
            do {
                validator = try Validator(schema: schema, options: options, resolveRemote: remotes)
            } catch {
                for case .object(let test) in tests {
                    outcome.failures.append("\(file) / \(groupName) / \(test["description"].map(Self.text) ?? "?"): schema did not compile: \(error)")
                }
                continue
            }
            for case .object(let test) in tests {
                guard case .string(let name)? = test["description"], let data = test["data"],
                      case .bool(let expected)? = test["valid"] else { continue }
                let fast = validator.isValid(data)
                let violations = validator.validate(data)
                if fast == expected && violations.isEmpty == expected {
                    outcome.passed += 1
                } else {
                    let detail = fast != (violations.isEmpty) ? " (isValid and validate disagree)" : ""
                    outcome.failures.append("\(file) / \(groupName) / \(name): expected \(expected ? "valid" : "invalid")\(detail)")
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
