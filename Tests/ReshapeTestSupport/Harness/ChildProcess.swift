import Foundation
import XCTest

/// A built executable of this package, run as a child process with its output captured.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let output = Output()

    /// What the child wrote and whether it is done, behind one condition that is signalled at
    /// each change, so that a wait wakes when there is something new to look at. The pipes'
    /// handlers and the termination handler hold it, not the `ChildProcess`.
    private final class Output: @unchecked Sendable {
        let changed = NSCondition()
        var stdout = ""
        var stderr = ""
        var openPipes = 2
        var exited = false
        /// Counts the changes, so that a wait knows whether one came since it last looked.
        var version = 0

        func update(_ change: (Output) -> Void) {
            changed.withLock {
                change(self)
                version += 1
                changed.broadcast()
            }
        }

        func read<Value>(_ value: (Output) -> Value) -> Value { changed.withLock { value(self) } }

        /// Waits until `done` holds or `deadline` passes; returns whether it held. `done` runs
        /// without the lock (it may read the output), once at first and again after each change.
        func wait(until deadline: Date, for done: () -> Bool) -> Bool {
            while true {
                let seen = read { $0.version }
                if done() { return true }
                let changedInTime = changed.withLock {
                    while version == seen {
                        if !changed.wait(until: deadline) { return false }
                    }
                    return true
                }
                if !changedInTime { return done() }
            }
        }
    }

    public static var productsDirectory: URL {
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

    public convenience init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        try self.init(
            at: ChildProcess.productsDirectory.appendingPathComponent(executable), arguments, environment: environment)
    }

    /// A program outside this package (e.g. Debian's redis-server).
    public init(at executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let output = output
        for (pipe, isStdout) in [(stdoutPipe, true), (stderrPipe, false)] {
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    output.update { $0.openPipes -= 1 }
                    return
                }
                let text = String(decoding: data, as: UTF8.self)
                output.update {
                    if isStdout { $0.stdout += text } else { $0.stderr += text }
                }
            }
        }
        process.terminationHandler = { _ in output.update { $0.exited = true } }
        try process.run()
    }

    public var stdout: String { output.read { $0.stdout } }
    public var stderr: String { output.read { $0.stderr } }

    /// Waits until `predicate` holds for the captured output, or fails after `timeout` seconds;
    /// it is checked again each time output arrives.
    public func waitFor(_ timeout: TimeInterval = 10, _ what: String, _ predicate: (ChildProcess) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let output = output
        _ = output.wait(until: deadline) { predicate(self) || output.read { $0.exited } }
        if predicate(self) { return }
        if output.read({ $0.exited }) {
            // What it wrote last may still be in the pipes.
            _ = output.wait(until: Date().addingTimeInterval(1)) { output.read { $0.openPipes == 0 } }
            if predicate(self) { return }
            throw HarnessError(
                "\(process.executableURL!.lastPathComponent) exited (\(process.terminationStatus)) before \(what); stderr: \(stderr)"
            )
        }
        throw HarnessError(
            "timed out waiting for \(what); stdout: \(stdout.suffix(500)) stderr: \(stderr.suffix(1000))")
    }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for exit; nil if it is still running after `timeout` seconds.
    public func waitForExit(_ timeout: TimeInterval = 15) -> Int32? {
        let output = output
        guard output.wait(until: Date().addingTimeInterval(timeout), for: { output.read { $0.exited } }) else {
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            if waitForExit(5) == nil { kill(process.processIdentifier, SIGKILL) }
        }
    }
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The demo upstream on a free loopback port.
public final class DemoUpstream {
    public let child: ChildProcess
    public let port: Int

    public init(arguments: [String] = []) throws {
        child = try ChildProcess("reshape-demo-upstream", ["--listen", "127.0.0.1:0"] + arguments)
        try child.waitFor(10, "the demo upstream to listen") { $0.stdout.contains("listening on") }
        guard let line = child.stdout.split(separator: "\n").first(where: { $0.contains("listening on") }),
            let port = Int(line.split(separator: ":").last ?? "")
        else { throw HarnessError("no port in \(child.stdout)") }
        self.port = port
    }

    /// The upstream's record of requests it saw.
    public func log() throws -> [[String: Any]] {
        let response = try RawHTTP.get(port: port, "/_log")
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }

    /// Waits until a request whose target starts with `prefix` has reached the upstream, so a
    /// test knows the proxy has it in flight.
    public func waitForRequest(_ prefix: String, timeout: TimeInterval = 5) throws {
        let reached = try waitUntil(timeout: timeout) {
            try log().contains(where: { ($0["target"] as? String ?? "").hasPrefix(prefix) })
        }
        if reached { return }
        throw HarnessError("no request for \(prefix) reached the upstream: \(try log())")
    }
}

/// `reshape serve` on a free loopback port, with rules written to a temporary directory.
public final class ReshapeServer {
    public let child: ChildProcess
    public let port: Int
    /// Where the admin endpoints answer: `port` unless `--admin-listen` gave them their own.
    public let adminPort: Int
    public let rulesDirectory: URL

    public convenience init(rules: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reshape-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try rules.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        try self.init(rulesDirectory: directory, arguments: arguments, environment: environment)
    }

    /// Serves the rules already in `rulesDirectory` (which `stop` removes).
    public init(rulesDirectory: URL, arguments: [String] = [], environment: [String: String] = [:]) throws {
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

    public func replaceRules(_ rules: String) throws {
        try rules.write(to: rulesDirectory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
    }

    public func stop() {
        child.stop()
        try? FileManager.default.removeItem(at: rulesDirectory)
    }
}
