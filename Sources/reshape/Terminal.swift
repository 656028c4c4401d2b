import ArgumentParser
import Glibc
import ReshapeJSON
import ReshapeOpenAPI
import ReshapeRules

/// Small I/O helpers shared by the verbs. Files and the standard streams go through POSIX
/// calls straight into and out of byte arrays: no `Data` in between, so a large document is
/// not copied twice on its way in and out.
enum Terminal {
    static func error(_ message: String) {
        writeAll(2, Array((message + "\n").utf8))
    }

    static func write(_ bytes: [UInt8]) {
        writeAll(1, bytes)
    }

    /// Reads a file, or standard input when `path` is nil or "-".
    static func read(_ path: String?) throws -> [UInt8] {
        let isStandardInput = path == nil || path == "-"
        switch isStandardInput ? LocalFiles.readAll(0) : LocalFiles.read(path!) {
        case .success(let bytes):
            return bytes
        case .failure(let failure):
            error("reshape: cannot read \(isStandardInput ? "standard input" : path!): \(failure.reason)")
            throw ExitCodeError.usage
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return  // a closed pipe: nothing more can be said
                }
                offset += n
            }
        }
    }

    /// Parses JSON, printing `NAME:line:column: message` and exiting 1 when it is not JSON.
    static func parseJSON(_ bytes: [UInt8], name: String) throws -> JSON {
        try reportingParseError(name) { () throws(JSONParseError) in try JSON.parse(bytes) }
    }

    /// `parseJSON`, but to a tape: the way the server parses an upstream body.
    static func parseTape(_ bytes: [UInt8], name: String) throws -> JSONTape {
        try reportingParseError(name) { () throws(JSONParseError) in try JSONTape.parse(bytes) }
    }

    fileprivate static func reportingParseError<T>(_ name: String, _ parse: () throws(JSONParseError) -> T) throws -> T
    {
        do {
            return try parse()
        } catch {
            self.error("\(name):\(error.line):\(error.column): \(error.message)")
            throw ExitCodeError.invalidInput
        }
    }

    /// Loads rules or prints every diagnostic and exits 1.
    static func loadRules(_ path: String) throws -> RuleSet {
        switch RuleLoader.loadServable(path: path, environment: LocalFiles.environment) {
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
