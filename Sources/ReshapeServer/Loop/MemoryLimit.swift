import Glibc

/// The container's memory limit, from the cgroup (v2 `memory.max`, else v1
/// `memory.limit_in_bytes`), for the default memory budget.
package enum MemoryLimit {
    /// Half the container's limit when one is set, else 1 GiB.
    package static func defaultInflightBudget() -> Int {
        containerLimit().map { $0 / 2 } ?? 1 << 30
    }

    /// nil when no limit is set (v2 says `max`; v1 says a number near 2^63) or none is readable.
    package static func containerLimit() -> Int? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = firstLine(path) else { continue }
            guard let bytes = Int(text), bytes > 0, bytes < 1 << 60 else { return nil }
            return bytes
        }
        return nil
    }

    private static func firstLine(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init)
    }
}
