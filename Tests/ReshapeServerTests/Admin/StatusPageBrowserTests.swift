import Foundation
import ReshapeTestSupport
import XCTest

/// The status page at `/_reshape/`, rendered by a real browser (headless Chromium, from Debian)
/// against a real `reshape serve` and the demo upstream: the DOM the browser built is checked,
/// and a screenshot is left for a person to look at (its path is printed).
final class StatusPageBrowserTests: XCTestCase {
    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", circuit: { failures: 3, open-for: 10s } }
        types:
        \(UsersRules.userType())
        routes:
        \(UsersRules.route(upstream: "demo", wrap: nil))
          - name: cached-users
            request: GET /cached/users
            upstream: demo
            path: /users.json
            cache: { ttl: 60s, upstream-cache-control: ignore }
            transform: []
        """
    }

    private func chromium(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let binary = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("no \(binary): scripts/setup.sh installs Debian's chromium")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testABrowserShowsRoutesDropsCacheAndCircuits() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(rules: Self.rules(upstreamPort: upstream.port))
        defer { server.stop() }
        for _ in 0..<3 {
            XCTAssertEqual(try RawHTTP.get(port: server.port, "/users").status, 200)
            XCTAssertEqual(try RawHTTP.get(port: server.port, "/cached/users").status, 200)
        }
        let page = try RawHTTP.get(port: server.port, "/_reshape/")
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")

        let url = "http://127.0.0.1:\(server.port)/_reshape/"
        let dom = try chromium(["--dump-dom", url])
        XCTAssertEqual(dom.status, 0)
        let html = dom.stdout
        XCTAssertTrue(html.contains("<h1>Reshape</h1>"), html)
        XCTAssertTrue(html.contains("<td>users</td><td><code>GET /users</code></td>"), html)
        XCTAssertTrue(html.contains("<td>cached-users</td>"), html)
        XCTAssertTrue(html.contains("66.7 %"), "2 of the 3 cached answers came from the cache: \(html)")
        XCTAssertTrue(html.contains("/name: "), "a dropped element's reason: \(html)")
        XCTAssertTrue(html.contains("<td class=\"closed\">closed</td>"), html)
        XCTAssertTrue(
            html.contains(
                "<code>\(try XCTUnwrap(page.text.split(separator: "<code>")[1].split(separator: "<")[0]))</code>"))
        XCTAssertFalse(html.contains("<script"), "no scripts")

        let screenshot = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-status-page.png")
        try? FileManager.default.removeItem(at: screenshot)
        let shot = try chromium(["--screenshot=\(screenshot.path)", "--window-size=1280,900", url])
        XCTAssertEqual(shot.status, 0)
        let size = (try FileManager.default.attributesOfItem(atPath: screenshot.path)[.size] as? Int) ?? 0
        XCTAssertGreaterThan(size, 10_000, "a screenshot with something on it")
        print("status page screenshot: \(screenshot.path) (\(size) bytes)")
    }

    /// Operators only: with an admin listener, the public port does not know `/_reshape/`.
    func testThePublicPortOfAServerWithAnAdminListenerHasNoStatusPage() throws {
        let upstream = try DemoUpstream()
        defer { upstream.child.stop() }
        let server = try ReshapeServer(
            rules: Self.rules(upstreamPort: upstream.port), arguments: ["--admin-listen", "127.0.0.1:0"])
        defer { server.stop() }
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/_reshape/").status, 404)
        XCTAssertEqual(try RawHTTP.get(port: server.adminPort, "/_reshape/").status, 200)
    }
}
