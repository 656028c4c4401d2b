/// What the demo remembers about one request, so tests can see what Reshape did upstream:
/// what it sent (method, headers, body), when, and whether it abandoned the request (for
/// example that a client disconnect cancelled the upstream transfer).
struct LogEntry: Sendable {
    /// The part of a body kept in the log.
    static let maxLoggedBodyBytes = 8192

    let id: Int
    let method: String
    let target: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]
    /// Monotonic milliseconds: when the head was read, when the answer started going out, and
    /// when the request ended (answered, or the client seen gone).
    let startedMs: Int
    var answeredMs: Int?
    var endedMs: Int?
    var completed = false
    var clientAborted = false

    var json: DemoValue {
        func time(_ value: Int?) -> DemoValue { value.map { .int($0) } ?? .null }
        return .object([
            ("id", .int(id)), ("method", .string(method)), ("target", .string(target)),
            ("headers", .array(headers.map { .array([.string($0.name), .string($0.value)]) })),
            ("bodyBytes", .int(body.count)),
            ("body", .string(String(decoding: body.prefix(LogEntry.maxLoggedBodyBytes), as: UTF8.self))),
            ("startedMs", .int(startedMs)), ("answeredMs", time(answeredMs)), ("endedMs", time(endedMs)),
            ("completed", .bool(completed)), ("clientAborted", .bool(clientAborted)),
        ])
    }
}

/// The last `capacity` requests, shared by all connection threads.
final class RequestLog: @unchecked Sendable {
    private let lock = Lock()
    private var entries: [LogEntry] = []
    private var nextId = 1
    private let capacity = 1000

    /// Records a new request and returns its id.
    func begin(_ request: DemoRequest) -> Int {
        let now = monotonicMilliseconds()
        return lock.withLock {
            let id = nextId
            nextId += 1
            entries.append(
                LogEntry(
                    id: id, method: request.method, target: request.target, headers: request.headers,
                    body: Array(request.body.prefix(LogEntry.maxLoggedBodyBytes)), startedMs: now))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
            return id
        }
    }

    /// The answer is about to be written: the upstream's work for the request is done.
    func markAnswering(_ id: Int) {
        let now = monotonicMilliseconds()
        update(id) { $0.answeredMs = now }
    }

    func markCompleted(_ id: Int) {
        let now = monotonicMilliseconds()
        update(id) {
            $0.completed = true
            $0.endedMs = now
        }
    }

    func markClientAborted(_ id: Int) {
        let now = monotonicMilliseconds()
        update(id) {
            $0.clientAborted = true
            $0.endedMs = now
        }
    }

    func clear() {
        lock.withLock { entries.removeAll() }
    }

    var snapshot: DemoValue {
        lock.withLock { .array(entries.map(\.json)) }
    }

    private func update(_ id: Int, _ change: (inout LogEntry) -> Void) {
        lock.withLock {
            if let index = entries.lastIndex(where: { $0.id == id }) { change(&entries[index]) }
        }
    }
}
