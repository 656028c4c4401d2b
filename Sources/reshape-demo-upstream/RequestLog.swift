/// What the demo remembers about one request, so tests can see what Reshape did upstream
/// (for example that a client disconnect cancelled the upstream transfer).
struct LogEntry: Sendable {
    let id: Int
    let target: String
    var completed = false
    var clientAborted = false

    var json: DemoValue {
        .object([
            ("id", .int(id)), ("target", .string(target)),
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
    func begin(target: String) -> Int {
        lock.withLock {
            let id = nextId
            nextId += 1
            entries.append(LogEntry(id: id, target: target))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
            return id
        }
    }

    func markCompleted(_ id: Int) { update(id) { $0.completed = true } }
    func markClientAborted(_ id: Int) { update(id) { $0.clientAborted = true } }

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
