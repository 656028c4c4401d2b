/// The demo's live database, one per process: starts as the canned data, changes with writes,
/// and tells every open stream of a location about each write that touches it. One lock covers
/// the data and the streams, so a new stream's first `put` and the events after it never miss
/// or repeat a write, and every stream sees writes in the same order.
final class DemoStore: @unchecked Sendable {
    private let lock = Lock()
    private var root: DemoValue
    private var streams: [Int: StreamSubscriber] = [:]
    private var opened = 0

    init(root: DemoValue = DemoData.root) {
        self.root = root
    }

    /// The value at `path`; nil when missing.
    func read(_ path: [String]) -> DemoValue? {
        lock.withLock { root.value(at: path) }
    }

    /// Applies `write` and queues its event on every stream whose location it changed.
    func apply(_ write: DemoWrite) {
        lock.withLock {
            let before = root
            root = write.applied(to: before)
            for stream in streams.values {
                if let event = StreamEvent.forWrite(write, location: stream.location, before: before, after: root) {
                    stream.post(event)
                }
            }
        }
    }

    /// Applies `write` when `precondition` holds for the value at its path, atomically, as
    /// Firebase checks `if-match`; the value there afterwards either way, and whether it applied.
    func apply(_ write: DemoWrite, if precondition: (DemoValue?) -> Bool) -> (applied: Bool, now: DemoValue?) {
        lock.withLock {
            guard precondition(root.value(at: write.path)) else { return (false, root.value(at: write.path)) }
            let before = root
            root = write.applied(to: before)
            for stream in streams.values {
                if let event = StreamEvent.forWrite(write, location: stream.location, before: before, after: root) {
                    stream.post(event)
                }
            }
            return (true, root.value(at: write.path))
        }
    }

    /// Opens a stream of `location`, its first `put` (the whole value) already queued; nil when
    /// no wake pipe can be had.
    func subscribe(_ location: [String]) -> StreamSubscriber? {
        lock.withLock {
            let first = StreamEvent.put(path: [], data: root.value(at: location) ?? .null)
            guard let stream = StreamSubscriber(id: opened + 1, location: location, first: first) else { return nil }
            opened += 1
            streams[stream.id] = stream
            return stream
        }
    }

    /// Forgets a stream whose connection ended.
    func unsubscribe(_ stream: StreamSubscriber) {
        lock.withLock { streams[stream.id] = nil }
    }

    /// Asks every open stream (of `location` only, when given) to end so; how many were asked.
    func endStreams(_ how: StreamSubscriber.Ending, location: [String]? = nil) -> Int {
        lock.withLock {
            var count = 0
            for stream in streams.values where location == nil || stream.location == location {
                stream.end(how)
                count += 1
            }
            return count
        }
    }

    /// `{"open": n, "opened": m, "streams": [{"id", "path"}]}`: streams open now, streams opened
    /// since the start, and the open ones by id.
    var streamStatus: DemoValue {
        lock.withLock {
            let open = streams.values.sorted { $0.id < $1.id }.map { stream in
                DemoValue.object([
                    ("id", .int(stream.id)), ("path", .string(StreamEvent.pathText(stream.location))),
                ])
            }
            return .object([("open", .int(streams.count)), ("opened", .int(opened)), ("streams", .array(open))])
        }
    }
}
