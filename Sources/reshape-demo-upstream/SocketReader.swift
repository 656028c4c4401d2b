#if canImport(Glibc)
    import Glibc
#endif

/// Buffered blocking reads from one connected socket.
final class SocketReader {
    enum HeadResult {
        case head([UInt8])
        case closed, tooLarge
    }

    let fd: Int32
    private(set) var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 65_536)

    init(fd: Int32) { self.fd = fd }

    /// Reads once more from the socket; false when the peer closed or the read failed.
    @discardableResult
    func fill() -> Bool {
        while true {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: scratch[0..<n])
                return true
            }
            if n < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// The bytes up to and including the blank line that ends a request head.
    func readHead(limit: Int) -> HeadResult {
        var scanned = 0
        while true {
            // Clients may send stray CRLFs between requests (RFC 9112 §2.2): skip them.
            while buffer.count >= 2 && buffer[0] == 13 && buffer[1] == 10 { buffer.removeFirst(2) }
            if let end = find([13, 10, 13, 10], from: max(0, scanned - 3)) {
                if end + 4 > limit { return .tooLarge }
                let head = Array(buffer[0..<(end + 4)])
                buffer.removeFirst(end + 4)
                return .head(head)
            }
            scanned = buffer.count
            if buffer.count > limit { return .tooLarge }
            if !fill() { return .closed }
        }
    }

    /// Exactly `count` bytes, or nil when the peer closes first.
    func read(count: Int) -> [UInt8]? {
        while buffer.count < count { if !fill() { return nil } }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// One CRLF-terminated line without its CRLF, or nil when the peer closes first.
    func readLine(limit: Int = 8192) -> [UInt8]? {
        while true {
            if let end = find([13, 10], from: 0) {
                let line = Array(buffer[0..<end])
                buffer.removeFirst(end + 2)
                return line
            }
            if buffer.count > limit || !fill() { return nil }
        }
    }

    /// Waits up to `milliseconds` (forever when nil) and returns true as soon as the peer
    /// closes. Bytes that arrive meanwhile (a pipelined request) are kept for later.
    func waitForClose(milliseconds: Int?) -> Bool {
        let deadline = milliseconds.map { monotonicMilliseconds() + $0 }
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - monotonicMilliseconds()
                if left <= 0 { return false }
                timeout = Int32(min(left, Int(Int32.max)))
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return true }
            if ready == 0 { continue }
            if !fill() { return true }
        }
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        var i = start
        while i + pattern.count <= buffer.count {
            if buffer[i] == pattern[0] && Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
            i += 1
        }
        return nil
    }
}

func monotonicMilliseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}
