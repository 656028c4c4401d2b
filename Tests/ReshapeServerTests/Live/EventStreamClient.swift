import Foundation
import Glibc
import ReshapeJSON
import ReshapeLive
import ReshapeTestSupport

/// A live route's subscriber over a raw socket: sends the GET, reads the head, then undoes the
/// chunked framing and parses the events as they come, with bounded waits.
final class EventStreamClient {
    let socket: RawHTTP
    private(set) var status = 0
    private(set) var headers: [(String, String)] = []
    /// Bytes read and not yet unframed.
    private var pending: [UInt8] = []
    private var parser = ServerSentEventParser()
    private var events: [ServerSentEvent] = []
    /// The last chunk (or the connection's end) arrived.
    private(set) var ended = false
    var comments: Int { parser.commentsSeen }

    init(port: Int, _ target: String, headers extra: [String] = []) throws {
        socket = try RawHTTP(port: port, timeout: 0.2)
        socket.send(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                + extra.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Reads the head; call before `next` for a client that reads.
    func readHead(timeout: TimeInterval = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let separator: [UInt8] = [13, 10, 13, 10]
        while Date() < deadline {
            if let end = (0..<max(0, pending.count - 3)).first(where: { Array(pending[$0..<$0 + 4]) == separator }) {
                let lines = String(decoding: pending[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
                status = Int(lines[0].split(separator: " ")[1]) ?? 0
                headers = lines.dropFirst().compactMap { line in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    )
                }
                pending.removeFirst(end + 4)
                return
            }
            guard readSome() else { break }
        }
        throw HarnessError("no head for the stream")
    }

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// The next event, waiting at most `timeout`; nil when none came or the stream ended.
    func next(timeout: TimeInterval = 5) throws -> ServerSentEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        // What came with the head (a stream refused at once arrives whole, its end too) is
        // read before the socket, which may have nothing more to say.
        try unframe()
        while events.isEmpty && !ended && Date() < deadline {
            if !readSome() { continue }
            try unframe()
        }
        return events.isEmpty ? nil : events.removeFirst()
    }

    /// The next event, which must be named `name`.
    func expect(_ name: String, timeout: TimeInterval = 5) throws -> ServerSentEvent {
        guard let event = try next(timeout: timeout) else { throw HarnessError("no \(name) event came") }
        guard event.name == name else { throw HarnessError("expected \(name), got \(event.name): \(event.data)") }
        return event
    }

    /// Waits until the stream has ended (the last chunk or the connection's end).
    func waitForEnd(timeout: TimeInterval = 5) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        try unframe()
        while !ended && Date() < deadline {
            if readSome() { try unframe() }
        }
        return ended
    }

    /// Waits until `count` keep-alive comments came.
    func waitForComments(_ count: Int, timeout: TimeInterval = 5) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        try unframe()
        while comments < count && !ended && Date() < deadline {
            if readSome() { try unframe() }
        }
        return comments >= count
    }

    func close() { socket.close() }

    /// One recv; false on a timeout. The peer closing ends the stream.
    private func readSome() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket.fd, &buffer, buffer.count, 0)
        if count == 0 {
            ended = true
            return false
        }
        if count < 0 { return false }
        pending += buffer[0..<count]
        return true
    }

    /// Takes whole chunks off `pending` and feeds their data to the event parser.
    private func unframe() throws {
        while let lineEnd = (0..<max(0, pending.count - 1)).first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 })
        {
            guard let size = Int(String(decoding: pending[0..<lineEnd], as: UTF8.self), radix: 16) else {
                throw HarnessError("bad chunk size in \(String(decoding: pending.prefix(40), as: UTF8.self))")
            }
            if size == 0 {
                ended = true
                pending = []
                return
            }
            guard pending.count >= lineEnd + 2 + size + 2 else { return }
            let data = Array(pending[(lineEnd + 2)..<(lineEnd + 2 + size)])
            pending.removeFirst(lineEnd + 2 + size + 2)
            events += try parser.feed(data)
        }
    }
}

/// A patch event's data as a `JSONPatch`, to apply client-side.
func patch(from text: String) throws -> JSONPatch {
    guard case .array(let items) = try JSON.parse(Array(text.utf8)) else { throw HarnessError("not a patch: \(text)") }
    return JSONPatch(
        try items.map { item in
            guard case .object(let object) = item, case .string(let op)? = object["op"],
                case .string(let path)? = object["path"], let pointer = JSONPointer(path)
            else { throw HarnessError("not an operation: \(item)") }
            switch op {
            case "add": return .add(pointer, object["value"] ?? .null)
            case "remove": return .remove(pointer)
            case "replace": return .replace(pointer, object["value"] ?? .null)
            default: throw HarnessError("unknown op \(op)")
            }
        })
}
