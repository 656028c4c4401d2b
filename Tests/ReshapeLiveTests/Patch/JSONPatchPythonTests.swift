import Foundation
import ReshapeJSON
import XCTest

@testable import ReshapeLive

/// Our patches applied by another RFC 6902 implementation, the `jsonpatch` package (PyPI), in
/// the venv `scripts/setup-python-tools.sh` makes. Python re-prints what it parsed, so the test
/// documents hold only numbers it prints as spelled: integers, `N.0` and short decimals with no
/// trailing zero (see RandomAnswers).
final class JSONPatchPythonTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Reads `[old, patch]` per line and writes each result, compact and not ASCII-escaped.
    static let script = """
        import json, sys, jsonpatch
        with open(sys.argv[1], encoding="utf-8") as cases, open(sys.argv[2], "w", encoding="utf-8") as out:
            for line in cases:
                old, patch = json.loads(line)
                new = jsonpatch.apply_patch(old, patch)
                out.write(json.dumps(new, separators=(",", ":"), ensure_ascii=False) + "\\n")
        """

    func testJsonpatchAppliesOurPatchesToTheSameBytes() throws {
        var pairs: [(JSON, JSON)] = [
            (json(#"{"a/b":1,"~c":[1,2],"é":{"x":"y"}}"#), json(#"{"a/b":2,"~c":[1,3,2],"é":{"x":"y","z~/":null}}"#)),
            (json(#"{"a":1,"b":2}"#), json(#"{"b":2,"a":1}"#)),
            (json(#"{"a":1}"#), json(#"{"a":1.0}"#)),
            (json("[[],{}]"), json(#"[{},[],[1,[2,[]]]]"#)),
            (json(#"{"objects":[]}"#), json("[]")),
            (json("[1,1,1,2]"), json("[1,1]")),
        ]
        var answers = RandomAnswers(seed: 2024)
        for pair in 0..<300 {
            let old = answers.answer(records: pair % 11)
            var new = old
            for _ in 0..<(1 + pair % 4) { new = answers.changed(new) }
            pairs.append((old, new))
        }

        var cases: [UInt8] = []
        var expected: [[UInt8]] = []
        for (old, new) in pairs {
            let patch = JSONPatch.difference(from: old, to: new)
            cases += JSON.array([old, try JSON.parse(patch.serialized())]).serialized()
            cases.append(0x0A)
            expected.append(new.serialized())
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jsonpatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("cases.jsonl")
        let output = directory.appendingPathComponent("results.jsonl")
        try Data(cases).write(to: input)

        try run(try Self.python(), ["-c", Self.script, input.path, output.path])
        let results = try Data(contentsOf: output).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(results.count, pairs.count)
        for (i, (result, expected)) in zip(results, expected).enumerated() {
            XCTAssertEqual(
                String(decoding: result, as: UTF8.self), String(decoding: expected, as: UTF8.self),
                "pair \(i): \(JSONPatch.difference(from: pairs[i].0, to: pairs[i].1).text)")
        }
    }

    /// The venv's Python, when it has jsonpatch.
    static func python() throws -> URL {
        let python = packageRoot.appendingPathComponent(".build-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Failure("no \(python.path): run scripts/setup-python-tools.sh")
        }
        do {
            try run(python, ["-c", "import jsonpatch"])
        } catch {
            throw Failure("jsonpatch is not installed: run scripts/setup-python-tools.sh")
        }
        return python
    }

    private static func run(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("\(executable.lastPathComponent) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }

    private func run(_ executable: URL, _ arguments: [String]) throws { try Self.run(executable, arguments) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
