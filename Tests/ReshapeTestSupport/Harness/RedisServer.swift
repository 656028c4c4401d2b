import Foundation
import Glibc

/// A loopback TCP port nothing listens on now (the kernel's choice), for a child process to take.
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw HarnessError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A real `redis-server` on `port`, without persistence, once it accepts connections.
public func startRedisServer(port: Int) throws -> ChildProcess {
    let server = URL(fileURLWithPath: "/usr/bin/redis-server")
    guard FileManager.default.isExecutableFile(atPath: server.path) else {
        throw HarnessError("redis-server is not installed (scripts/setup.sh installs it)")
    }
    let redis = try ChildProcess(
        at: server, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
    try redis.waitFor(10, "redis to accept connections") { $0.stdout.contains("Ready to accept connections") }
    return redis
}
