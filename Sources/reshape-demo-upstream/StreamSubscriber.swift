#if canImport(Glibc)
    import Glibc
#endif

/// The mailbox of one open stream: events waiting to be sent, how the server wants the stream
/// to end, and a pipe that wakes the stream's connection thread out of `poll` when either
/// changes. Writers (the store, the control endpoints) post; the connection thread takes.
final class StreamSubscriber: @unchecked Sendable {
    /// How the server ends a stream.
    enum Ending: Sendable {
        /// Send this last event (`cancel` or `auth_revoked`), end the body, close.
        case finalEvent(StreamEvent)
        /// Close the connection at once, mid-stream, with a TCP reset (a lost connection).
        case drop
    }

    let id: Int
    /// The streamed location (decoded segments).
    let location: [String]
    /// Read end of the wake pipe: readable when there is something to take.
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let lock = Lock()
    private var pending: [UInt8] = []
    private var ending: Ending?

    /// A mailbox with `first` already in it; nil when no pipe can be had.
    init?(id: Int, location: [String], first: StreamEvent) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.id = id
        self.location = location
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
        pending = first.bytes
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    /// Queues an event (ignored once an ending is set) and wakes the connection thread.
    func post(_ event: StreamEvent) {
        let queued = lock.withLock {
            guard ending == nil else { return false }
            pending += event.bytes
            return true
        }
        if queued { wake() }
    }

    /// Asks the stream to end; the first ending asked for wins.
    func end(_ how: Ending) {
        lock.withLock { if ending == nil { ending = how } }
        wake()
    }

    /// Whether the server asked for the connection to be dropped.
    var isDropping: Bool {
        lock.withLock {
            if case .drop? = ending { return true }
            return false
        }
    }

    /// Everything queued so far and the ending, if one was asked for; empties the wake pipe.
    func take() -> (bytes: [UInt8], ending: Ending?) {
        drainWake()
        return lock.withLock {
            defer { pending = [] }
            return (pending, ending)
        }
    }

    /// Empties the wake pipe (it only says "look").
    func drainWake() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while scratch.withUnsafeMutableBytes({ read(wakeFD, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)  // a full pipe already says "look"
    }
}
