import Glibc

/// Opens listening sockets with SO_REUSEPORT so each worker accepts on its own socket and the
/// kernel spreads connections across them. libuv 1.44 has no flag for that, so the socket is
/// made here and handed to `uv_tcp_open`.
enum ListeningSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Binds `count` sockets to one address; port 0 picks a free port, shared by all of them.
    /// Without `reusePort` the address must be free: no other listener can share it.
    static func open(host: String, port: Int, count: Int, reusePort: Bool = true) throws(Failure) -> (
        sockets: [Int32], port: Int
    ) {
        var sockets: [Int32] = []
        var actualPort = port
        for _ in 0..<count {
            let fd = try bind(host: host, port: actualPort, reusePort: reusePort)
            sockets.append(fd)
            if actualPort == 0 { actualPort = boundPort(fd) }
        }
        return (sockets, actualPort)
    }

    private static func bind(host: String, port: Int, reusePort: Bool) throws(Failure) -> Int32 {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var storage = sockaddr_storage()
        var length: socklen_t
        var family: Int32
        if literal.contains(":") {
            family = AF_INET6
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, literal, &address.sin6_addr) == 1 else {
                throw Failure(description: "'\(host)' is not an IP address")
            }
            withUnsafeBytes(of: address) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            family = AF_INET
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
                throw Failure(description: "'\(host)' is not an IP address (use 0.0.0.0, 127.0.0.1, :: or localhost)")
            }
            withUnsafeBytes(of: address) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot listen on \(host):\(port): \(message)")
        }
        return fd
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafeBytes(of: storage) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in6.self).sin6_port)) }
        }
        return withUnsafeBytes(of: storage) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in.self).sin_port)) }
    }
}
