import Foundation
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// The shared GCRA script run by a real `redis-server`: nanosecond intervals, its stored
/// `seconds nanoseconds` times, and keys an older replica stored in microseconds.
final class SharedLimitScriptTests: XCTestCase {
    private func cli(_ port: Int, _ arguments: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(port)] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func check(_ port: Int, interval: String, burst: String) throws -> [Int] {
        try cli(port, ["EVAL", SharedLimitCheck.script, "1", "k", interval, burst]).compactMap { Int($0) }
    }

    func testNanosecondIntervalsAndStoredTimes() throws {
        let port = try freeLoopbackPort()
        let redis = try startRedisServer(port: port)
        defer { redis.stop() }

        // 1.5 s apart, a burst of 2: two admitted, the third waits about 1.5 s.
        XCTAssertEqual(try check(port, interval: "1500000000", burst: "2"), [1, 1, 0])
        XCTAssertEqual(try check(port, interval: "1500000000", burst: "2"), [1, 0, 0])
        let refused = try check(port, interval: "1500000000", burst: "2")
        XCTAssertEqual(refused.prefix(2), [0, 0])
        XCTAssertTrue((1_000_000...3_000_000).contains(refused[2]), "\(refused)")
        let stored = try cli(port, ["GET", "k"]).first ?? ""
        XCTAssertNotNil(stored.wholeMatch(of: /\d+ \d{1,9}/), stored)

        // A high rate keeps its own interval (700000/s is 1429 ns, not 1 µs), never 0.
        _ = try cli(port, ["DEL", "k"])
        // (It expires within 2 ms, so the next run, milliseconds later, is admitted again.)
        XCTAssertEqual(try check(port, interval: "1429", burst: "1"), [1, 0, 0])
        XCTAssertEqual(try check(port, interval: "1429", burst: "1"), [1, 0, 0])

        // A time an older replica stored, in microseconds, 3 s ahead: still read.
        let time = try cli(port, ["TIME"]).compactMap { Int($0) }
        XCTAssertEqual(time.count, 2)
        _ = try cli(port, ["SET", "k", String(time[0] * 1_000_000 + time[1] + 3_000_000)])
        let legacy = try check(port, interval: "1500000000", burst: "2")
        XCTAssertEqual(legacy.prefix(2), [0, 0])
        XCTAssertTrue((1_000_000...1_500_000).contains(legacy[2]), "\(legacy)")
    }

    func testArgumentsAreNanoseconds() {
        let policy = LimitPolicy(
            name: "fast", count: 700_000, intervalSeconds: 1, burst: 5, key: .clientAddress,
            location: SourceLocation(file: "rules.yaml", line: 1, column: 1))
        let entry = RateLimiter.Entry(
            policy: policy, key: LimitKey(policy: "fast", value: "v"),
            sharedName: LimitKey.sharedName(policy: "fast", value: "v"))
        let check = SharedLimitCheck([entry])
        XCTAssertEqual(check.arguments, ["1429", "5"])
        XCTAssertEqual(check.keys, ["reshape:limit:" + LimitKey.sharedName(policy: "fast", value: "v")])
    }
}
