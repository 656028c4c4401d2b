// The stream controls under /_demo/streams, for tests of a stream's client: how many streams
// are open and were opened, and ending them the ways Firebase ends streams.

extension Router {
    /// `GET /_demo/streams`: `{"open", "opened", "streams": [{"id", "path"}]}`.
    /// `POST /_demo/streams/cancel`, `/revoke`, `/drop` (`?path=/users` for the streams of one
    /// location only; `?reason=TEXT` for the event's data): every open stream gets `cancel` or
    /// `auth_revoked` and its body ends, or has its connection reset mid-stream. Answers
    /// `{"streams": n}`, how many streams were told.
    func demoControl(_ segments: [String], _ request: DemoRequest) -> DemoReply {
        guard segments.first == "streams" else {
            return .respond(.firebaseError(404, "Known: GET /_demo/streams, POST /_demo/streams/{cancel,revoke,drop}."))
        }
        let action = segments.count > 1 ? segments[1] : ""
        if action.isEmpty {
            guard request.method == "GET" || request.method == "HEAD" else {
                return .respond(.firebaseError(405, "GET /_demo/streams reads the stream counts."))
            }
            return .respond(.json(store.streamStatus, pretty: request.queryValue("print") == "pretty"))
        }
        // `POST /_demo/streams/refuse?count=N&status=S`: the next N stream requests are answered S
        // (default 503) instead of a stream, as an overloaded Firebase would.
        if action == "refuse" {
            guard request.method == "POST" else {
                return .respond(.firebaseError(405, "POST /_demo/streams/refuse refuses the next stream requests."))
            }
            let count = Int(request.queryValue("count") ?? "1") ?? 1
            let status = Int(request.queryValue("status") ?? "503") ?? 503
            guard (0...1000).contains(count), (400...599).contains(status) else {
                return .respond(.firebaseError(400, "Use ?count=0..1000&status=400..599."))
            }
            streamRefusals.set(count: count, status: status)
            return .respond(.json(.object([("refusing", .int(count)), ("status", .int(status))])))
        }
        let ending: StreamSubscriber.Ending
        switch action {
        case "cancel": ending = .finalEvent(.cancel(request.queryValue("reason") ?? "Permission denied"))
        case "revoke": ending = .finalEvent(.authRevoked(request.queryValue("reason") ?? "Auth token is expired"))
        case "drop": ending = .drop
        default:
            return .respond(.firebaseError(404, "Unknown stream control \(action): cancel, revoke or drop."))
        }
        guard request.method == "POST" else {
            return .respond(.firebaseError(405, "POST /_demo/streams/\(action) ends the open streams."))
        }
        let location = request.queryValue("path").map { $0.split(separator: "/").map(String.init) }
        let count = store.endStreams(ending, location: location)
        return .respond(.json(.object([("streams", .int(count))])))
    }
}

/// How many of the next stream requests are refused, and with what status (`/_demo/streams/refuse`).
final class StreamRefusals: @unchecked Sendable {
    private let lock = Lock()
    private var remaining = 0
    private var status = 503

    func set(count: Int, status: Int) {
        lock.withLock {
            remaining = count
            self.status = status
        }
    }

    /// The status to refuse this stream request with; nil to serve it.
    func take() -> Int? {
        lock.withLock {
            guard remaining > 0 else { return nil }
            remaining -= 1
            return status
        }
    }
}
