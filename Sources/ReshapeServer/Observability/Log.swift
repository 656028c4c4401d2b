import Glibc
import ReshapeJSON

/// Structured logs: one JSON object per line; access lines on stdout, the rest on stderr.
/// Each line is one write(2), so lines from different workers do not interleave.
enum Log {
    static func event(_ message: String, _ fields: KeyValuePairs<String, JSON> = [:]) {
        var object = JSONObject()
        object["time_ms"] = .number(JSONNumber(Clock.unixMilliseconds()))
        object["message"] = .string(message)
        for (key, value) in fields { object[key] = value }
        write(fd: 2, JSON.object(object).serialized() + [0x0A])
    }

    static func access(_ line: [UInt8]) {
        write(fd: 1, line)
    }

    private static func write(fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
