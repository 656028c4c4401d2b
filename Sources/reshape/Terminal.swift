import Foundation
import ReshapeJSON
import ReshapeRules

/// Small I/O helpers shared by the verbs.
enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func write(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// Reads a file, or standard input when `path` is nil or "-".
    static func read(_ path: String?) throws -> [UInt8] {
        if let path, path != "-" {
            guard let data = FileManager.default.contents(atPath: path) else {
                error("reshape: cannot read \(path)")
                throw ExitCodeError.usage
            }
            return [UInt8](data)
        }
        return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
    }

    /// Parses JSON, printing `NAME:line:column: message` and exiting 1 when it is not JSON.
    static func parseJSON(_ bytes: [UInt8], name: String) throws -> JSON {
        try reportingParseError(name) { () throws(JSONParseError) in try JSON.parse(bytes) }
    }

    /// `parseJSON`, but to a tape: the way the server parses an upstream body.
    static func parseTape(_ bytes: [UInt8], name: String) throws -> JSONTape {
        try reportingParseError(name) { () throws(JSONParseError) in try JSONTape.parse(bytes) }
    }

    private static func reportingParseError<T>(_ name: String, _ parse: () throws(JSONParseError) -> T) throws -> T {
        do {
            return try parse()
        } catch {
            self.error("\(name):\(error.line):\(error.column): \(error.message)")
            throw ExitCodeError.invalidInput
        }
    }

    /// Loads rules or prints every diagnostic and exits 1.
    static func loadRules(_ path: String) throws -> RuleSet {
        switch RuleLoader.load(path: path, environment: ProcessInfo.processInfo.environment) {
        case .success(let rules):
            return rules
        case .failure(let diagnostics):
            for diagnostic in diagnostics.diagnostics { error(diagnostic.description) }
            error("\(diagnostics.diagnostics.count) problem\(diagnostics.diagnostics.count == 1 ? "" : "s") in \(path)")
            throw ExitCodeError.invalidInput
        }
    }
}

/// Exit statuses the verbs share.
enum ExitCodeError: Error {
    case invalidInput
    case usage
}

import ArgumentParser

extension ExitCodeError {
    var exitCode: ExitCode { self == .invalidInput ? ExitCode(1) : ExitCode(2) }
}

/// Runs a verb body, turning its `ExitCodeError` into the process exit status.
func withExitCodes(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCodeError {
        throw error.exitCode
    }
}
