import Foundation
import XCTest

/// Rate-limit settings are checked before anything starts: a bad one exits 2 and names itself;
/// `reshape check` refuses a bad policy at its place.
final class LimitsCLITests: XCTestCase {
    func testServeRefusesBadLimitSettings() throws {
        let refused: [([String], String)] = [
            (["--limit-keys", "0"], "--limit-keys takes a whole number of keys, 1 or more"),
            (["--trusted-proxies", "10.0.0.0/33"], "--trusted-proxies takes addresses or networks"),
            (["--trusted-proxies", "10.0.0.0/8,proxy.internal"], "(got 'proxy.internal')"),
            (["--limits-redis", "http://127.0.0.1:6379"], "must start with redis://"),
            (
                ["--limits-redis-timeout", "0"],
                "--limits-redis-timeout takes a whole number of milliseconds, 1 or more"
            ),
        ]
        for (arguments, message) in refused {
            let run = try reshape(["serve", "--rules", "no/such/rules"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        let good = [
            "--limit-keys", "5000", "--trusted-proxies", "10.0.0.0/8, fd00::/8", "--limits-redis", "redis://127.0.0.1",
        ]
        XCTAssertEqual(
            try reshape(["serve", "--rules", "no/such/rules"] + good).status, 1,
            "good settings pass on to the rules, which do not exist")
    }

    /// A zero or negative bound given as an option is refused as the environment's is: a
    /// negative idle timeout trapped at the first connection's timer.
    func testServeRefusesBoundsThatAreNotPositive() throws {
        for (option, variable) in [
            ("--idle-timeout=-5", "RESHAPE_IDLE_TIMEOUT"), ("--idle-timeout=0", "RESHAPE_IDLE_TIMEOUT"),
            ("--max-connections=-1", "RESHAPE_MAX_CONNECTIONS"), ("--workers=0", "RESHAPE_WORKERS"),
        ] {
            let run = try reshape(["serve", "--rules", "no/such/rules", option])
            XCTAssertEqual(run.status, 2, "\(option): \(run.stderr)")
            XCTAssertTrue(
                run.stderr.contains("\(variable) must be a positive whole number"), "\(option): \(run.stderr)")
        }
    }

    func testCheckRefusesAnAuthKeyOnARouteWithoutAuth() throws {
        let rules = try temporaryFile(
            """
            upstreams:
              api: { url: "http://127.0.0.1:1" }
            limits:
              per-user: { rate: 10/s, key: auth.sub }
            routes:
              - name: open
                request: GET /open
                upstream: api
                path: /open.json
                limit: [per-user]
                transform: []
            """, "rules.yaml")
        let run = try reshape(["check", "--rules", rules])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(
            (run.stdout + run.stderr).contains(
                "rules.yaml:10:13: policy 'per-user' is keyed by auth.sub, but the route has no `auth`"),
            run.stdout + run.stderr)
    }
}
