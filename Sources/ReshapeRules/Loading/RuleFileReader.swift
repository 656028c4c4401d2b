/// Reads the rule files of a directory (or one file). File I/O happens only here, at load time.
enum RuleFileReader {
    static let extensions = [".yaml", ".yml", ".json"]

    static func read(path: String) throws(RuleDiagnostics) -> [(name: String, text: String)] {
        guard let isDirectory = LocalFiles.isDirectory(path) else { throw failure(path, "no such file or directory") }
        var paths: [String] = []
        if isDirectory {
            guard case .success(let names) = LocalFiles.names(in: path) else {
                throw failure(path, "cannot list the directory")
            }
            paths = names.filter { name in !name.hasPrefix(".") && extensions.contains { name.hasSuffix($0) } }
                .sorted().map { LocalFiles.join(path, $0) }
        } else {
            paths = [path]
        }
        var files: [(name: String, text: String)] = []
        for file in paths {
            guard case .success(let bytes) = LocalFiles.read(file) else { throw failure(file, "cannot read the file") }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw failure(file, "the file is not UTF-8")
            }
            files.append((file, text))
        }
        return files
    }

    private static func failure(_ path: String, _ message: String) -> RuleDiagnostics {
        RuleDiagnostics([RuleDiagnostic(location: SourceLocation(file: path, line: 1, column: 1), message: message)])
    }
}

/// A stable fingerprint of the rule files, so a fleet's rule versions can be compared in /metrics.
enum RuleDigest {
    /// FNV-1a (64-bit) over each file's name and text, in the order given (sorted by name).
    static func of(_ files: [(name: String, text: String)]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in files {
            for byte in (file.name.split(separator: "/").last.map(String.init) ?? file.name).utf8 + [0] + file.text.utf8
                + [0]
            {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
