import CCurl
import CLibUV
import Glibc
import ReshapeProxy
import ReshapeRules

/// The upstream sockets curl asks the loop to watch, one uv_poll handle each (multi-uv.c's
/// `handle_socket`); readiness goes back to curl through `ready`.
///
/// A connection's handle is kept for the socket's whole life rather than per transfer: a
/// kept-alive connection serves many requests, and re-creating the handle for each would cost
/// an allocation and several system calls per request. It is closed when curl closes the
/// socket (CURLOPT_CLOSESOCKETFUNCTION). Only sockets curl opened through
/// CURLOPT_OPENSOCKETFUNCTION are kept so: others (the threaded resolver's socketpair) are
/// closed by curl directly, so their handle goes when curl stops watching them.
final class SocketWatches {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let metrics: Metrics
    /// Hands curl a socket's readiness (`CURL_CSELECT_*` flags).
    private let ready: (curl_socket_t, Int32) -> Void
    private var watches: [curl_socket_t: SocketWatch] = [:]
    /// Sockets curl opened through `opening` and has not closed yet.
    private var connectionSockets: Set<curl_socket_t> = []
    /// Which connections are idle, and which of them to close.
    private var idle = IdleConnections()
    /// Runs while any connection is idle, closing those idle past their upstream's `idle-timeout`
    /// and those beyond its `max-idle`.
    private let sweepTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var sweeping = false
    /// Set by `close`: curl's cleanup still reports its sockets, but the sweep is gone.
    private var closed = false
    private static let sweepMilliseconds: UInt64 = 1000

    init(loop: UnsafeMutablePointer<uv_loop_t>, metrics: Metrics, ready: @escaping (curl_socket_t, Int32) -> Void) {
        self.loop = loop
        self.metrics = metrics
        self.ready = ready
        uv_timer_init(loop, sweepTimer)
        sweepTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// The idle pool of `upstream`, as the request about to start says.
    func idlePool(_ upstream: String, rule: IdlePoolRule) {
        idle.rule(rule, for: upstream)
    }

    /// Stops the sweep; call when the client closes.
    func close() {
        closed = true
        uv_timer_stop(sweepTimer)
        uv_close(reshape_timer_handle(sweepTimer)) { handle in handle?.deallocate() }
    }

    /// curl's socket callback: what it wants to know about `fd` (`CURL_POLL_*`).
    func watch(socket fd: curl_socket_t, action: Int32) {
        if action == reshape_curl_poll_remove {
            // Keep the handle for the connection's next request. An idle kept-alive socket only
            // stays polled for reading (EOF from the upstream is then noticed and stops it);
            // polling it for writing would wake the loop for nothing.
            guard let watch = watches[fd] else { return }
            guard watch.isConnection else { return closeWatch(fd) }
            watch.wanted = false
            if watch.polled & Int32(UV_WRITABLE.rawValue) != 0 { stopPolling(watch) }
            wentIdle(fd)
            return
        }
        idle.inUse(fd)
        let watch: SocketWatch
        if let existing = watches[fd] {
            watch = existing
        } else {
            watch = SocketWatch(fd: fd, owner: self, isConnection: connectionSockets.contains(fd))
            uv_poll_init_socket(loop, watch.poll, fd)
            watch.poll.pointee.data = Unmanaged.passRetained(watch).toOpaque()
            watches[fd] = watch
        }
        watch.wanted = true
        var events: Int32 = 0
        if action == reshape_curl_poll_in || action == reshape_curl_poll_inout {
            events |= Int32(UV_READABLE.rawValue)
        }
        if action == reshape_curl_poll_out || action == reshape_curl_poll_inout {
            events |= Int32(UV_WRITABLE.rawValue)
        }
        guard events != watch.polled else { return }
        watch.polled = events
        uv_poll_start(watch.poll, events) { poll, status, events in
            guard let poll, let data = poll.pointee.data else { return }
            let watch = Unmanaged<SocketWatch>.fromOpaque(data).takeUnretainedValue()
            watch.owner.pollEvent(watch, status: status, events: events)
        }
    }

    private func pollEvent(_ watch: SocketWatch, status: Int32, events: Int32) {
        guard watch.wanted else {
            // Data or EOF on an idle connection: curl checks the connection before reusing it.
            stopPolling(watch)
            return
        }
        var flags: Int32 = 0
        if status < 0 {
            flags = reshape_curl_csel_err
        } else {
            if events & Int32(UV_READABLE.rawValue) != 0 { flags |= reshape_curl_csel_in }
            if events & Int32(UV_WRITABLE.rawValue) != 0 { flags |= reshape_curl_csel_out }
        }
        ready(watch.fd, flags)
    }

    private func stopPolling(_ watch: SocketWatch) {
        uv_poll_stop(watch.poll)
        watch.polled = 0
    }

    /// curl opens a connection socket (CURLOPT_OPENSOCKETFUNCTION) for a transfer to `upstream`.
    func opening(family: Int32, type: Int32, protocol: Int32, upstream: String) -> curl_socket_t {
        let fd = socket(family, type, `protocol`)
        if fd >= 0 {
            connectionSockets.insert(fd)
            idle.opened(fd, upstream: upstream)
            metrics.upstreamConnectionOpened()
        }
        return fd
    }

    // MARK: - The idle pool

    /// A connection finished its transfer and waits in curl's cache for the next one.
    private func wentIdle(_ fd: curl_socket_t) {
        idle.idle(fd, now: Clock.monotonicSeconds())
        if idle.idleCount > 0, !sweeping, !closed {
            sweeping = true
            uv_timer_start(
                sweepTimer,
                { timer in
                    guard let timer, let data = timer.pointee.data else { return }
                    Unmanaged<SocketWatches>.fromOpaque(data).takeUnretainedValue().sweep()
                }, Self.sweepMilliseconds, Self.sweepMilliseconds)
        }
    }

    private func sweep() {
        for socket in idle.sweep(now: Clock.monotonicSeconds()) { retire(socket) }
        if idle.idleCount == 0 {
            uv_timer_stop(sweepTimer)
            sweeping = false
        }
    }

    /// Ends an idle connection's TCP connection. The descriptor stays curl's: curl finds the
    /// connection dead when it next looks at its cache (before reusing it, or when pruning) and
    /// closes it through `closing`. Closing the descriptor here instead would let curl close
    /// whatever socket gets the same number next.
    private func retire(_ fd: curl_socket_t) {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// curl is closing a socket: its poll handle goes first, so a new socket that gets the
    /// same descriptor starts clean.
    func closing(_ fd: curl_socket_t) {
        connectionSockets.remove(fd)
        idle.forget(fd)
        closeWatch(fd)
        Glibc.close(fd)
    }

    private func closeWatch(_ fd: curl_socket_t) {
        guard let watch = watches.removeValue(forKey: fd) else { return }
        uv_poll_stop(watch.poll)
        uv_close(reshape_poll_handle(watch.poll)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            let watch = Unmanaged<SocketWatch>.fromOpaque(data).takeRetainedValue()
            watch.poll.deallocate()
        }
    }
}

/// One socket's uv_poll handle, retained by the handle until its close callback.
private final class SocketWatch {
    let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
    let fd: curl_socket_t
    unowned let owner: SocketWatches
    /// The uv events being polled now (0 when stopped).
    var polled: Int32 = 0
    /// Whether curl currently wants events for this socket.
    var wanted = false
    /// A connection socket (kept until curl closes it), not a helper descriptor.
    let isConnection: Bool

    init(fd: curl_socket_t, owner: SocketWatches, isConnection: Bool) {
        self.fd = fd
        self.owner = owner
        self.isConnection = isConnection
    }
}
