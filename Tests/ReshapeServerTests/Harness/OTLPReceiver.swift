import Foundation
import ReshapeTestSupport
import XCTest

/// `otlp_receiver.py` as a child process: a real OTLP/HTTP receiver that decodes what it gets
/// with the opentelemetry-proto package and writes each span as a JSON line to a file.
final class OTLPReceiver {
    let child: ChildProcess
    let port: Int
    let output: URL

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The venv's Python, when it has the packages (`scripts/setup-python-tools.sh`).
    static func python() throws -> URL {
        let python = packageRoot.appendingPathComponent(".build-tools/venv/bin/python")
        let check = Process()
        check.executableURL = python
        check.arguments = ["-c", "import opentelemetry.proto, google.protobuf"]
        guard (try? check.run()) != nil else {
            throw HarnessError("no \(python.path): run scripts/setup-python-tools.sh")
        }
        check.waitUntilExit()
        guard check.terminationStatus == 0 else {
            throw HarnessError("opentelemetry-proto is not installed: run scripts/setup-python-tools.sh")
        }
        return python
    }

    init() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let script = Self.packageRoot.appendingPathComponent("Tests/ReshapeServerTests/Harness/otlp_receiver.py")
        child = try ChildProcess(at: try Self.python(), [script.path, output.path])
        try child.waitFor(10, "the OTLP receiver to listen") { $0.stdout.contains("listening on") }
        guard let line = child.stdout.split(separator: "\n").first(where: { $0.contains("listening on") }),
            let port = Int(line.split(separator: " ").last ?? "")
        else { throw HarnessError("no port in \(child.stdout)") }
        self.port = port
    }

    /// Every line written so far: a span, or `{"error": ...}` for a body that did not decode.
    func lines() throws -> [[String: Any]] {
        let text = try String(contentsOf: output, encoding: .utf8)
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits until `count` spans of `traceID` have arrived; returns them.
    func waitForSpans(traceID: String, count: Int, timeout: TimeInterval = 6) throws -> [[String: Any]] {
        var spans: [[String: Any]] = []
        let arrived = try waitUntil(timeout: timeout) {
            spans = try lines().filter { $0["traceId"] as? String == traceID }
            return spans.count >= count
        }
        if arrived { return spans }
        throw HarnessError("expected \(count) spans of \(traceID); the receiver has: \(try lines())")
    }

    func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: output)
    }
}
