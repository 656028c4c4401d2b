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

/// What `redis-cli -p port ARGUMENTS...` prints.
public func redisCLI(port: Int, _ arguments: [String]) throws -> String {
    let cli = Process()
    cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
    cli.arguments = ["-p", String(port)] + arguments
    let output = Pipe()
    cli.standardOutput = output
    try cli.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    cli.waitUntilExit()
    return text
}

/// Waits until `count` clients besides the asker are connected to the Redis on `port` (each
/// `reshape serve` worker connects on its own, after start-up): a test that stores through
/// one replica and reads through another must not race those connections.
public func waitForRedisClients(port: Int, count: Int, timeout: TimeInterval = 5) throws {
    let connected = try waitUntil(timeout: timeout) {
        try redisCLI(port: port, ["CLIENT", "LIST"]).split(separator: "\n").count - 1 >= count
    }
    guard connected else { throw HarnessError("fewer than \(count) clients connected to Redis in \(timeout) s") }
}

/// Waits until the Redis on `port` holds at least `count` keys: a replica's store is sent
/// after its answer, so another replica asked at once could miss it.
public func waitForRedisKeys(port: Int, count: Int, timeout: TimeInterval = 5) throws {
    let stored = try waitUntil(timeout: timeout) {
        Int(try redisCLI(port: port, ["DBSIZE"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= count
    }
    guard stored else { throw HarnessError("fewer than \(count) keys in Redis after \(timeout) s") }
}
