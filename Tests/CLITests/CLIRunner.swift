import Foundation
import XCTest

/// The `reshape` binary as a user runs it: arguments, files, stdin, stdout, stderr, exit status.
enum CLIRunner {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    private static var binary: URL {
        for candidate in [Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL] {
            let url = candidate.appendingPathComponent("reshape")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return packageRoot.appendingPathComponent(".build/debug/reshape")
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func reshape(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Run
    {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = Self.packageRoot
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        // A command that refuses its arguments exits before reading its input: the write then
        // fails with EPIPE, which must not kill the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        // Standard error is read beside standard output: read one after the other, a command
        // that fills the second pipe (LD_DEBUG's lines can) would wait for a reader forever.
        let errors = ReadToEnd()
        let reading = DispatchGroup()
        let errorHandle = err.fileHandleForReading
        DispatchQueue.global().async(group: reading) { errors.data = errorHandle.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        let stderr = errors.data
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// What the reading thread read; read by the caller only after `DispatchGroup.wait`.
    private final class ReadToEnd: @unchecked Sendable {
        var data = Data()
    }

    static func temporaryFile(_ text: String, _ name: String = "input.json") throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)-\(name)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}

extension XCTestCase {
    func reshape(_ arguments: [String], stdin: String? = nil) throws -> CLIRunner.Run {
        try CLIRunner.reshape(arguments, stdin: stdin)
    }

    func temporaryFile(_ text: String, _ name: String = "input.json") throws -> String {
        try CLIRunner.temporaryFile(text, name)
    }
}
