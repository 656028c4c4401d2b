import Foundation
import XCTest

/// A built executable of this package, run as a child process with its output captured.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let lock = NSLock()
    private var stdoutText = ""
    private var stderrText = ""

    static var productsDirectory: URL {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
            Bundle(for: ChildProcess.self).bundleURL.deletingLastPathComponent(),
        ]
        for candidate in candidates
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("reshape").path) {
            return candidate
        }
        return candidates[0]
    }

    convenience init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        try self.init(
            at: ChildProcess.productsDirectory.appendingPathComponent(executable), arguments, environment: environment)
    }

    /// A program outside this package (e.g. Debian's redis-server).
    init(at executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        stdoutPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.stdoutText += String(decoding: data, as: UTF8.self) }
        }
        stderrPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.stderrText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    var stdout: String { lock.withLock { stdoutText } }
    var stderr: String { lock.withLock { stderrText } }

    /// Waits until `predicate` holds for the captured output, or fails after `timeout` seconds.
    func waitFor(_ timeout: TimeInterval = 10, _ what: String, _ predicate: (ChildProcess) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(self) { return }
            if !process.isRunning {
                Thread.sleep(forTimeInterval: 0.1)
                if predicate(self) { return }
                throw HarnessError(
                    "\(process.executableURL!.lastPathComponent) exited (\(process.terminationStatus)) before \(what); stderr: \(stderr)"
                )
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw HarnessError(
            "timed out waiting for \(what); stdout: \(stdout.suffix(500)) stderr: \(stderr.suffix(1000))")
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for exit; nil if it is still running after `timeout` seconds.
    func waitForExit(_ timeout: TimeInterval = 15) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            if waitForExit(5) == nil { kill(process.processIdentifier, SIGKILL) }
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The demo upstream on a free loopback port.
final class DemoUpstream {
    let child: ChildProcess
    let port: Int

    init(arguments: [String] = []) throws {
        child = try ChildProcess("reshape-demo-upstream", ["--listen", "127.0.0.1:0"] + arguments)
        try child.waitFor(10, "the demo upstream to listen") { $0.stdout.contains("listening on") }
        guard let line = child.stdout.split(separator: "\n").first(where: { $0.contains("listening on") }),
            let port = Int(line.split(separator: ":").last ?? "")
        else { throw HarnessError("no port in \(child.stdout)") }
        self.port = port
    }

    /// The upstream's record of requests it saw.
    func log() throws -> [[String: Any]] {
        let response = try RawHTTP.get(port: port, "/_log")
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }

    /// Waits until a request whose target starts with `prefix` has reached the upstream, so a
    /// test knows the proxy has it in flight.
    func waitForRequest(_ prefix: String, timeout: TimeInterval = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try log().contains(where: { ($0["target"] as? String ?? "").hasPrefix(prefix) }) { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw HarnessError("no request for \(prefix) reached the upstream: \(try log())")
    }
}

/// `reshape serve` on a free loopback port, with rules written to a temporary directory.
final class ReshapeServer {
    let child: ChildProcess
    let port: Int
    /// Where the admin endpoints answer: `port` unless `--admin-listen` gave them their own.
    let adminPort: Int
    let rulesDirectory: URL

    convenience init(rules: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reshape-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try rules.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        try self.init(rulesDirectory: directory, arguments: arguments, environment: environment)
    }

    /// Serves the rules already in `rulesDirectory` (which `stop` removes).
    init(rulesDirectory: URL, arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.rulesDirectory = rulesDirectory
        child = try ChildProcess(
            "reshape",
            ["serve", "--rules", rulesDirectory.path, "--listen", "127.0.0.1:0", "--workers", "2"] + arguments,
            environment: environment)
        try child.waitFor(15, "reshape to listen") { $0.stderr.contains("\"listening\"") }
        let log = child.stderr
        func loggedPort(_ key: String) throws -> Int {
            guard let range = log.range(of: "\"\(key)\":\"127.0.0.1:"),
                let port = Int(log[range.upperBound...].prefix { $0.isNumber })
            else { throw HarnessError("no \(key) in \(log)") }
            return port
        }
        port = try loggedPort("address")
        adminPort = try loggedPort("admin_address")
    }

    func replaceRules(_ rules: String) throws {
        try rules.write(to: rulesDirectory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
    }

    func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: rulesDirectory)
    }
}
