#if canImport(Glibc)
    import Glibc
#endif

/// Serves one Firebase event stream on a client connection, on that connection's thread, until
/// the client leaves or the server ends it: sends what the store queues (first the location's
/// whole value), a `keep-alive` every interval, and watches the socket so that a client that
/// goes away ends the stream at once. The body is chunked, so a clean end (after `cancel` or
/// `auth_revoked`) and a lost connection (a drop) look different to the client.
struct StreamConnection {
    /// How a stream ended.
    enum Outcome {
        /// The client closed its end (or the socket failed).
        case clientLeft
        /// The server sent a final event and ended the body.
        case ended
        /// The server dropped the connection mid-stream.
        case dropped
    }

    let fd: Int32
    let stream: StreamSubscriber
    let keepAliveMilliseconds: Int

    static let head = Array(
        ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            + "Access-Control-Allow-Origin: *\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
            + "Server: reshape-demo-upstream\r\n\r\n").utf8)

    /// Runs the stream to its end. The caller unsubscribes and closes the socket.
    func run() -> Outcome {
        guard send(StreamConnection.head) else { return .clientLeft }
        var nextKeepAlive = monotonicMilliseconds() + keepAliveMilliseconds
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let (bytes, ending) = stream.take()
            if !bytes.isEmpty, !send(chunk(bytes)) { return stream.isDropping ? drop() : .clientLeft }
            switch ending {
            case .finalEvent(let event)?:
                return send(chunk(event.bytes) + Array("0\r\n\r\n".utf8)) ? .ended : .clientLeft
            case .drop?:
                return drop()
            case nil:
                break
            }
            let now = monotonicMilliseconds()
            if now >= nextKeepAlive {
                guard send(chunk(StreamEvent.keepAlive.bytes)) else { return stream.isDropping ? drop() : .clientLeft }
                nextKeepAlive = now + keepAliveMilliseconds
                continue
            }
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stream.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, Int32(min(nextKeepAlive - now, Int(Int32.max))))
            if ready < 0 && errno != EINTR { return .clientLeft }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                // Whatever the client sends now is ignored; end of file means it left.
                let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return .clientLeft }
            }
        }
    }

    /// `bytes` as one chunk of the chunked body.
    private func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + [13, 10]
    }

    /// Closes with a reset rather than an orderly end (SO_LINGER with a zero timeout).
    private func drop() -> Outcome {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        return .dropped
    }

    /// Writes all of `bytes`; false when the client is gone or a drop was asked for meanwhile
    /// (a client that reads nothing must not keep a drop waiting).
    private func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n > 0 {
                offset += n
                continue
            }
            guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
            var fds = [
                pollfd(fd: fd, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: stream.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 2, -1) < 0 && errno != EINTR { return false }
            if fds[1].revents != 0 {
                if stream.isDropping { return false }
                stream.drainWake()  // new events stay queued for the loop's next take()
            }
        }
        return true
    }
}
