#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 `HOST:PORT` to listen on; port 0 asks the kernel for a free one.
struct ListenAddress {
    var host: String
    var port: UInt16

    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        let host = String(text[..<colon])
        self.host = host == "localhost" ? "127.0.0.1" : (host.isEmpty ? "0.0.0.0" : host)
        self.port = port
    }
}

/// A bound, listening socket that hands each accepted connection to its own thread.
struct Listener {
    let fd: Int32
    /// The address actually bound (the real port when 0 was asked for).
    let bound: ListenAddress

    static func open(_ address: ListenAddress) throws -> Listener {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = address.port.bigEndian
        guard inet_pton(AF_INET, address.host, &addr.sin_addr) == 1 else {
            throw ListenError("not an IPv4 address: \(address.host)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ListenError("socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bindResult = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bindResult == 0, listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ListenError("cannot listen on \(address.host):\(address.port): \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var bound = address
        bound.port = UInt16(bigEndian: actual.sin_port)
        return Listener(fd: fd, bound: bound)
    }

    /// Accepts forever; every connection is served on a new thread.
    func serve(router: Router, log: RequestLog) -> Never {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno != EINTR { usleep(10_000) }  // e.g. EMFILE: back off instead of spinning
                continue
            }
            var on: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            spawnDetachedThread {
                Connection(fd: client, router: router, log: log).run()
            }
        }
    }
}

struct ListenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
