import Foundation
import Glibc
import ReshapeJSON
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
        guard let path, path != "-" else {
            guard let bytes = readAll(0, sizeHint: 0) else {
                error("reshape: cannot read standard input: \(String(cString: strerror(errno)))")
                throw ExitCodeError.usage
            }
            return bytes
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR,
              let bytes = readAll(fd, sizeHint: Int(info.st_size)) else {
            let reason = String(cString: strerror(fd >= 0 && (info.st_mode & S_IFMT) == S_IFDIR ? EISDIR : errno))
            if fd >= 0 { close(fd) }
            error("reshape: cannot read \(path): \(reason)")
            throw ExitCodeError.usage
        }
        close(fd)
        return bytes
    }

    /// Everything up to end of file. `sizeHint` (a regular file's size) sizes the first chunk,
    /// so a file is read into one array, uninitialized until read, with no copy.
    private static func readAll(_ fd: Int32, sizeHint: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var chunkSize = max(sizeHint + 1, 64 * 1024)
        while true {
            var failed = false
            var ended = false
            let chunk = [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, count in
                count = 0
                while count < buffer.count {
                    let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failed = true
                        return
                    }
                    if n == 0 {
                        ended = true
                        return
                    }
                    count += n
                }
            }
            if failed { return nil }
            if result.isEmpty { result = chunk } else { result += chunk }
            if ended { return result }
            chunkSize *= 2
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

    fileprivate static func reportingParseError<T>(_ name: String, _ parse: () throws(JSONParseError) -> T) throws -> T {
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
