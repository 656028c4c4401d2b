#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files and the environment through POSIX calls: what rule loading and the CLI need, without
/// Foundation (which would bring its ICU data into the binary) and without copying a file
/// through `Data` on its way into a byte array.
package enum LocalFiles {
    /// Why a path could not be read: the system's own words (`No such file or directory`).
    package struct Failure: Error, Sendable {
        package let reason: String
    }

    /// A regular file's bytes, read into one array sized from its length.
    package static func read(_ path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(lastFailure()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(lastFailure()) }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            return .failure(Failure(reason: String(cString: strerror(EISDIR))))
        }
        return readAll(fd, sizeHint: Int(info.st_size))
    }

    /// Everything up to end of file from an open descriptor (standard input, say). `sizeHint`
    /// sizes the first chunk, so a file is read into one array, uninitialized until read.
    package static func readAll(_ fd: Int32, sizeHint: Int = 0) -> Result<[UInt8], Failure> {
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
            if failed { return .failure(lastFailure()) }
            if result.isEmpty { result = chunk } else { result += chunk }
            if ended { return .success(result) }
            chunkSize *= 2
        }
    }

    /// Whether `path` is a directory; nil when it does not exist (or cannot be looked at).
    package static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in a directory, without `.` and `..`.
    package static func names(in directory: String) -> Result<[String], Failure> {
        guard let dir = opendir(directory) else { return .failure(lastFailure()) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// `directory/name`, without doubling a trailing slash.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The process environment, as `${VAR}` expansion and `RESHAPE_*` settings read it.
    package static var environment: [String: String] {
        var variables: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return variables
    }

    private static func lastFailure() -> Failure {
        Failure(reason: String(cString: strerror(errno)))
    }
}
