import Foundation
import ReshapeTestSupport
import XCTest

/// Rules that reload themselves: a file edited on disk, or a Kubernetes ConfigMap's symlink
/// swap, is served without a signal; a bad edit is refused and counted, the old rules serving.
final class RulesWatchTests: XCTestCase {
    private let fast = ["--watch-debounce", "200"]

    private func reloads(_ server: ReshapeServer) -> Int {
        server.child.stderr.components(separatedBy: "\"rules reloaded\"").count - 1
    }

    func testAnEditedRuleFileIsServedWithoutASignal() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port, version: "v1"),
            arguments: fast, environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v1"])

        try server.replaceRules(TestRules.rules(upstreamPort: upstream.port, version: "v2"))
        try server.child.waitFor(5, "the watched reload") { $0.stderr.contains("\"trigger\":\"file change\"") }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v2"])
        XCTAssertEqual(reloads(server), 1, "one burst of writes is one reload")

        try server.replaceRules("routes:\n  - name: broken\n    request: GET /x\n    upstream: none\n")
        try server.child.waitFor(5, "the refusal") { $0.stderr.contains("reload refused") }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v2"], "the old rules stay in service")
        let metrics = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains("reshape_rule_reloads_total{result=\"refused\"} 1"), metrics)

        // Rules written back as they are in service are no reload; new ones are.
        try server.replaceRules(TestRules.rules(upstreamPort: upstream.port, version: "v2"))
        try server.replaceRules(TestRules.rules(upstreamPort: upstream.port, version: "v3"))
        try server.child.waitFor(5, "the repaired rules") { _ in self.reloads(server) == 2 }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v3"])
        // A file that is not a rule file changes nothing: no reload, no refusal.
        try "notes".write(
            to: server.rulesDirectory.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
        // Nothing must happen: longer than the debounce (200 ms) and a reload, then look.
        Thread.sleep(forTimeInterval: 1.0)
        XCTAssertEqual(reloads(server), 2, server.child.stderr)
        XCTAssertEqual(server.child.stderr.components(separatedBy: "reload refused").count - 1, 1)
    }

    /// The layout kubelet writes for a ConfigMap volume: the files are symlinks through `..data`,
    /// which is itself a symlink swapped atomically (a rename) to a new timestamped directory.
    func testAConfigMapSymlinkSwapIsServed() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let manager = FileManager.default
        let volume = manager.temporaryDirectory.appendingPathComponent("reshape-configmap-\(UUID().uuidString)")
        func publish(_ version: String) throws {
            let generation = volume.appendingPathComponent("..2026_11_25_\(version)")
            try manager.createDirectory(at: generation, withIntermediateDirectories: true)
            try TestRules.rules(upstreamPort: upstream.port, version: version)
                .write(to: generation.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
            let temporary = volume.appendingPathComponent("..data_tmp")
            try manager.createSymbolicLink(atPath: temporary.path, withDestinationPath: generation.lastPathComponent)
            XCTAssertEqual(rename(temporary.path, volume.appendingPathComponent("..data").path), 0)
        }
        try manager.createDirectory(at: volume, withIntermediateDirectories: true)
        try publish("v1")
        try manager.createSymbolicLink(
            atPath: volume.appendingPathComponent("rules.yaml").path,
            withDestinationPath: "..data/rules.yaml")
        let server = try ReshapeServer(rulesDirectory: volume, arguments: fast, environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v1"])

        try publish("v2")
        try server.child.waitFor(5, "the watched reload") { $0.stderr.contains("\"trigger\":\"file change\"") }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v2"])
    }

    func testNoWatchRulesLeavesReloadToTheSignal() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: TestRules.rules(upstreamPort: upstream.port, version: "v1"),
            arguments: fast + ["--no-watch-rules"], environment: ["TEST_SECRET_TOKEN": "x"])
        defer { server.stop() }
        try server.replaceRules(TestRules.rules(upstreamPort: upstream.port, version: "v2"))
        // Nothing must happen: longer than the debounce (200 ms) and a reload, then look.
        Thread.sleep(forTimeInterval: 1.0)
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v1"], "no reload without a signal")
        server.child.signal(SIGHUP)
        try server.child.waitFor(5, "the reload") { $0.stderr.contains("\"trigger\":\"SIGHUP\"") }
        XCTAssertNotNil(try RawHTTP.get(port: server.port, "/version").json["v2"])
    }
}
