import Glibc

/// Unbuffered writes to the process's standard streams, for lines that must not wait.
enum FileOutput {
    static func stderr(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
