import Foundation
import Glibc
import ReshapeTestSupport
import XCTest

/// `--limits-redis` end to end: two `reshape serve` processes sharing one real `redis-server`
/// admit the policy's rate together, keep limiting alone while it is down, and share again
/// when it is back.
final class SharedRateLimitTests: XCTestCase {

    /// `count` requests to each replica in turn, as fast as they answer: how many were
    /// admitted, every status seen, and how long it took.
    private func burst(_ servers: [ReshapeServer], count: Int, tag: String) throws -> (
        admitted: Int, statuses: Set<Int>, seconds: Double
    ) {
        var clients = try servers.map { try RawHTTP(port: $0.port) }
        defer { for client in clients { client.close() } }
        var admitted = 0
        var statuses: Set<Int> = []
        let start = Date()
        for index in 0..<count {
            for replica in clients.indices {
                clients[replica].send("GET /paced/\(tag)\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                guard let response = clients[replica].readResponse() else { throw HarnessError("no answer") }
                statuses.insert(response.status)
                if response.status == 200 { admitted += 1 }
            }
        }
        return (admitted, statuses, Date().timeIntervalSince(start))
    }

    private func fallbacks(_ server: ReshapeServer) throws -> Int {
        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("reshape_limit_fallbacks_total ") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    func testTwoReplicasShareTheRateAndFallBackToTheirOwnWhileRedisIsDown() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        var redis = try startRedisServer(port: redisPort)
        defer { redis.stop() }
        // A generous timeout: a loaded (debug, sanitized) run must not fall back while Redis is up.
        let arguments = ["--limits-redis", "redis://127.0.0.1:\(redisPort)/0", "--limits-redis-timeout", "500"]
        let rules = RateLimitTests.rules(upstream.port)
        let servers = [
            try ReshapeServer(rules: rules, arguments: arguments),
            try ReshapeServer(rules: rules, arguments: arguments),
        ]
        defer { for server in servers { server.stop() } }

        // Shared: 20 at once and 10 a second for the two together, not twice it.
        let shared = try burst(servers, count: 20, tag: "s")
        XCTAssertEqual(shared.statuses, [200, 429])
        XCTAssertGreaterThanOrEqual(shared.admitted, 20)
        XCTAssertLessThanOrEqual(shared.admitted, 21 + Int(shared.seconds * 10), "in \(shared.seconds) s")

        // Redis loses the script (SCRIPT FLUSH): the next check gets NOSCRIPT, sends it whole,
        // and is still Redis's decision, not a fallback.
        let flush = Process()
        flush.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        flush.arguments = ["-p", String(redisPort), "SCRIPT", "FLUSH"]
        try flush.run()
        flush.waitUntilExit()
        let flushed = try burst(servers, count: 3, tag: "f")
        XCTAssertEqual(flushed.statuses.subtracting([200]), [429], "still limited after the flush")
        for server in servers {
            XCTAssertEqual(try fallbacks(server), 0, "decided by Redis, not by the process's own table")
        }

        // Redis stops: each replica limits alone (its own 20), and no request fails for it.
        redis.stop()
        let alone = try burst(servers, count: 25, tag: "a")
        XCTAssertEqual(alone.statuses, [200, 429], "limited locally, none failing")
        XCTAssertGreaterThanOrEqual(alone.admitted, 40, "each replica's own burst")
        XCTAssertLessThanOrEqual(alone.admitted, 42 + Int(alone.seconds * 20), "in \(alone.seconds) s")
        XCTAssertGreaterThanOrEqual(try fallbacks(servers[0]), 25)

        // Back: the replicas reconnect (within a second) and share again. The port was just
        // freed; on a busy machine binding it again may take a moment.
        redis = try restartRedisServer(port: redisPort)
        for server in servers {
            try server.child.waitFor(5, "the limits connection back") {
                $0.stderr.contains("shared rate limits reachable again")
            }
        }
        let again = try burst(servers, count: 20, tag: "b")
        XCTAssertEqual(again.statuses, [200, 429])
        XCTAssertLessThanOrEqual(again.admitted, 21 + Int(again.seconds * 10), "shared again, in \(again.seconds) s")
        XCTAssertEqual(
            try upstream.log().filter { ($0["target"] as? String ?? "").hasPrefix("/echo/") }.count,
            shared.admitted + flushed.admitted + alone.admitted + again.admitted,
            "no refused request reached the upstream")
    }

    /// `startRedisServer` on a port a Redis just left, retried while it is not yet free.
    private func restartRedisServer(port: Int) throws -> ChildProcess {
        var attempt = 0
        while true {
            do {
                return try startRedisServer(port: port)
            } catch {
                attempt += 1
                if attempt >= 5 { throw error }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// A Redis that stops answering (paused, as a blackholed one) is dropped after a few
    /// checks give up on it: the outage is logged, every request is still answered by the
    /// process's own table, nothing more is sent to it, and it is used again once back.
    func testAHungRedisIsDroppedAndTheOutageLogged() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer {
            kill(redis.process.processIdentifier, SIGCONT)
            redis.stop()
        }
        let server = try ReshapeServer(
            rules: RateLimitTests.rules(upstream.port),
            arguments: ["--limits-redis", "redis://127.0.0.1:\(redisPort)/0", "--limits-redis-timeout", "50"])
        defer { server.stop() }
        XCTAssertEqual(try burst([server], count: 2, tag: "u").statuses, [200])

        XCTAssertEqual(kill(redis.process.processIdentifier, SIGSTOP), 0)
        let hung = try burst([server], count: 12, tag: "h")
        XCTAssertEqual(hung.statuses, [200], "decided locally, none failing")
        try server.child.waitFor(5, "the hung connection dropped") {
            $0.stderr.contains("shared rate limits unavailable")
                && $0.stderr.contains("no answer to 8 rate-limit checks in a row")
        }
        // Dropped: the next requests are decided at once, not after a timeout each.
        let after = try burst([server], count: 5, tag: "d")
        XCTAssertEqual(after.statuses, [200])
        XCTAssertGreaterThanOrEqual(try fallbacks(server), 17)

        // Back (a paused Redis still accepts connections, so it may have been reconnected and
        // dropped again meanwhile): within a few seconds its checks are Redis's again.
        XCTAssertEqual(kill(redis.process.processIdentifier, SIGCONT), 0)
        let deadline = Date().addingTimeInterval(10)
        var decidedByRedis = false
        var round = 0
        while !decidedByRedis && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            let before = try fallbacks(server)
            round += 1
            _ = try burst([server], count: 1, tag: "r\(round)-")
            decidedByRedis = try fallbacks(server) == before
        }
        XCTAssertTrue(decidedByRedis, "Redis decides again once it answers")
    }

    /// Against a hung Redis at most 256 checks wait per connection: the requests beyond them
    /// are decided by the process's table at once, and nothing more is sent.
    func testAtMost256ChecksWaitForAHungRedis() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let redisPort = try freeLoopbackPort()
        let redis = try startRedisServer(port: redisPort)
        defer {
            kill(redis.process.processIdentifier, SIGCONT)
            redis.stop()
        }
        let server = try ReshapeServer(
            rules: RateLimitTests.rules(upstream.port),
            arguments: [
                "--workers", "1", "--limits-redis", "redis://127.0.0.1:\(redisPort)/0",
                "--limits-redis-timeout", "8000",
            ])
        defer { server.stop() }
        XCTAssertEqual(try burst([server], count: 1, tag: "u").statuses, [200])
        XCTAssertEqual(try fallbacks(server), 0)

        XCTAssertEqual(kill(redis.process.processIdentifier, SIGSTOP), 0)
        var clients: [RawHTTP] = []
        defer { for client in clients { client.close() } }
        for index in 0..<260 {
            let client = try RawHTTP(port: server.port)
            client.send("GET /paced/c\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            clients.append(client)
        }
        // Well before the 8 s timeout: the four beyond the cap are decided, the rest wait.
        let deadline = Date().addingTimeInterval(5)
        while try fallbacks(server) < 4, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        XCTAssertEqual(try fallbacks(server), 4)

        // Redis back in time: the 256 get its answers, and every request is answered.
        XCTAssertEqual(kill(redis.process.processIdentifier, SIGCONT), 0)
        var statuses: Set<Int> = []
        for index in clients.indices {
            guard let response = clients[index].readResponse() else { throw HarnessError("no answer \(index)") }
            statuses.insert(response.status)
        }
        XCTAssertEqual(statuses, [200, 429])
        XCTAssertEqual(try fallbacks(server), 4, "the waiting ones were Redis's decisions")
    }

    /// `--limits-redis none` keeps the limits in the process while `--cache-redis` is set:
    /// nothing is asked of Redis (here unreachable), so nothing falls back.
    func testLimitsRedisNoneKeepsLimitsLocalBesideACacheRedis() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let nowhere = try freeLoopbackPort()
        let server = try ReshapeServer(
            rules: RateLimitTests.rules(upstream.port),
            arguments: ["--cache-redis", "redis://127.0.0.1:\(nowhere)/0", "--limits-redis", "none"])
        defer { server.stop() }
        let local = try burst([server], count: 25, tag: "n")
        XCTAssertEqual(local.statuses, [200, 429])
        XCTAssertEqual(try fallbacks(server), 0, "decided by the process's table, never asked of Redis")
        XCTAssertFalse(server.child.stderr.contains("shared rate limits unavailable"))
    }
}
