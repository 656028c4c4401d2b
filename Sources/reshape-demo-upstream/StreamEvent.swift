// The events of a Firebase REST stream (`Accept: text/event-stream`), and which one a write
// sends to a stream of a given location.

/// One Server-Sent Event as Firebase sends it: `event: NAME`, one `data:` line of JSON.
enum StreamEvent: Sendable {
    /// Replace the value at `path` (relative to the streamed location, "/" for itself).
    case put(path: [String], data: DemoValue)
    /// Set each named child of `path` to its value (`null` deletes it).
    case patch(path: [String], data: [(String, DemoValue)])
    /// Sent periodically so that clients and proxies see the connection is alive.
    case keepAlive
    /// Reading the location is no longer allowed (or failed): the stream ends.
    case cancel(String)
    /// The credential expired: the stream ends.
    case authRevoked(String)

    /// The event as it goes on the wire, blank line included.
    var bytes: [UInt8] {
        let name: String
        let data: DemoValue
        switch self {
        case .put(let path, let value):
            name = "put"
            data = .object([("path", .string(StreamEvent.pathText(path))), ("data", value)])
        case .patch(let path, let children):
            name = "patch"
            data = .object([("path", .string(StreamEvent.pathText(path))), ("data", .object(children))])
        case .keepAlive:
            name = "keep-alive"
            data = .null
        case .cancel(let reason):
            name = "cancel"
            data = .string(reason)
        case .authRevoked(let reason):
            name = "auth_revoked"
            data = .string(reason)
        }
        return Array("event: \(name)\ndata: \(data.text())\n\n".utf8)
    }

    /// `/a/b`, or `/` for the location itself.
    static func pathText(_ path: [String]) -> String {
        "/" + path.joined(separator: "/")
    }

    /// What a stream of `location` is sent for `write`, given the database before and after it;
    /// nil when the location's value did not change.
    /// - A write at or below the location: a `put` of the written path's new value, or for a
    ///   PATCH of plain children, a `patch` with the children as written.
    /// - A write above it: a `put` of the location's whole new value at "/".
    static func forWrite(
        _ write: DemoWrite, location: [String], before: DemoValue, after: DemoValue
    ) -> StreamEvent? {
        guard !DemoValue.same(before.value(at: location), after.value(at: location)) else { return nil }
        guard write.path.count >= location.count, Array(write.path.prefix(location.count)) == location else {
            return .put(path: [], data: after.value(at: location) ?? .null)
        }
        let relative = Array(write.path.dropFirst(location.count))
        if case .update(let members) = write.kind, write.updatesChildrenOnly {
            return .patch(path: relative, data: members.map { ($0.0, $0.1.stored ?? .null) })
        }
        return .put(path: relative, data: after.value(at: write.path) ?? .null)
    }
}
