import Foundation
import ReshapeTestSupport
import XCTest

/// Issue 25 in a real browser: headless Chromium (Debian's) loads a page from a second origin
/// (`PageServer`) that calls `reshape serve` with fetch() and EventSource, and posts what it
/// got back to the page server.
final class CORSBrowserTests: XCTestCase {
    var upstream: DemoUpstream!
    var server: ReshapeServer!
    var pages: PageServer!
    var browser: Process?

    static func rules(upstreamPort: Int, pagePort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", timeout: 3s }
        cors:
          origins: ["http://127.0.0.1:\(pagePort)"]
          max-age: 1m
        types:
        \(UsersRules.userType())
        routes:
        \(UsersRules.route(upstream: "demo", options: ["live: true"]))
          - name: create-user
            request: POST /users
            upstream: demo
            path: /users.json
            body: {}
            transform: []
          - name: me
            request: GET /me
            upstream: demo
            path: /echo/me
            forward-headers: [Authorization]
            transform: []
        """
    }

    /// What the page does, each result posted to its own origin's `/result`: the three
    /// fetches in turn, then a stream whose events are posted as they come.
    static func page(reshapePort: Int) -> String {
        """
        <!doctype html><title>CORS</title><script>
        const R = "http://127.0.0.1:\(reshapePort)";
        const post = (name, value) =>
          fetch("/result", { method: "POST", body: JSON.stringify({ name, value: String(value) }) });
        async function attempt(name, call) {
          try { const r = await call(); await post(name, r.status + " " + await r.text()); }
          catch (e) { await post(name, "network error: " + e); }
        }
        (async () => {
          await attempt("get", () => fetch(R + "/users"));
          await attempt("auth", () => fetch(R + "/me", { headers: { Authorization: "Bearer page-token" } }));
          await attempt("post", () => fetch(R + "/users", { method: "POST",
            headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "Page", age: 7 }) }));
          const stream = new EventSource(R + "/users");
          stream.addEventListener("snapshot", (e) => post("snapshot", e.data));
          stream.addEventListener("patch", (e) => post("patch", e.data));
          stream.onerror = () => post("stream-error", stream.readyState);
        })();
        </script>
        """
    }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw HarnessError("no /usr/bin/chromium: scripts/setup.sh installs Debian's chromium")
        }
        upstream = try DemoUpstream()
        pages = try PageServer()
        server = try ReshapeServer(
            rules: Self.rules(upstreamPort: upstream.port, pagePort: pages.port), arguments: ["--workers", "1"])
        pages.setPage(Self.page(reshapePort: server.port))
    }

    override func tearDown() {
        closeBrowser()
        server?.stop()
        upstream?.child.stop()
        pages?.stop()
    }

    /// Opens `url` in a headless Chromium that stays until `closeBrowser`.
    func open(_ url: String) throws {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-cors-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
            "--remote-debugging-port=0", url,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        browser = process
    }

    func closeBrowser() {
        guard let browser else { return }
        browser.terminate()
        browser.waitUntilExit()
        self.browser = nil
    }

    func testAPageOfAnAllowedOriginFetchesPostsAndStreams() throws {
        try open("http://127.0.0.1:\(pages.port)/")
        let get = try XCTUnwrap(pages.wait(for: "get").first)
        XCTAssertTrue(get.hasPrefix("200 {\"objects\":[{\"objectId\":"), get)
        let auth = try XCTUnwrap(pages.wait(for: "auth").first)
        XCTAssertTrue(auth.hasPrefix("200 "), auth)
        XCTAssertTrue(auth.contains("Bearer page-token"), "the upstream got the forwarded header: \(auth)")
        let post = try XCTUnwrap(pages.wait(for: "post").first)
        XCTAssertTrue(post.hasPrefix("201 {\"name\":"), "a push id: \(post)")
        let metrics = try RawHTTP.get(port: server.adminPort, "/_reshape/metrics").text
        for route in ["me", "create-user"] {
            XCTAssertTrue(
                metrics.contains("reshape_cors_preflights_total{route=\"\(route)\",result=\"allowed\"} 1"),
                "the browser asked first: \(metrics)")
        }

        let snapshot = try XCTUnwrap(pages.wait(for: "snapshot").first)
        XCTAssertTrue(snapshot.contains("\"Page\""), "the user the page created: \(snapshot)")
        try writeUpstream("POST", "/users.json", #"{"name":"Streamed","age":40}"#)
        let patch = try XCTUnwrap(pages.wait(for: "patch").first)
        XCTAssertTrue(patch.contains("Streamed"), patch)

        // The upstream ends the stream: Reshape closes the page's connection, and the browser's
        // reconnection (with Last-Event-ID) gets a fresh snapshot, through CORS again.
        try writeUpstream("POST", "/_demo/streams/cancel", nil)
        let snapshots = try pages.wait(for: "snapshot", count: 2, timeout: 10)
        XCTAssertTrue(snapshots[1].contains("Streamed"), snapshots[1])
    }

    func testAPageOfAnotherOriginGetsNetworkErrorsAndItsPreflightedRequestsReachNoUpstream() throws {
        _ = try RawHTTP.get(port: upstream.port, "/_log?clear=1")
        // The same page and ports, by another name: another origin.
        try open("http://localhost:\(pages.port)/")
        for name in ["get", "auth", "post"] {
            let value = try XCTUnwrap(pages.wait(for: name).first)
            XCTAssertTrue(value.hasPrefix("network error: TypeError"), "\(name): \(value)")
        }
        XCTAssertEqual(try pages.wait(for: "stream-error").first, "2", "closed, without reconnecting")
        XCTAssertEqual(pages.posted.filter { $0.name == "snapshot" }.count, 0)
        let targets = try upstream.log().map { "\($0["method"] ?? "") \($0["target"] ?? "")" }
        XCTAssertFalse(targets.contains { $0.contains("/echo/me") }, "the preflighted GET: \(targets)")
        XCTAssertFalse(targets.contains { $0.hasPrefix("POST") }, "the preflighted POST: \(targets)")
        XCTAssertTrue(targets.contains("GET /users.json"), "a simple GET is sent; only its answer is hidden")
    }

    func writeUpstream(_ method: String, _ target: String, _ body: String?) throws {
        var client = try RawHTTP(port: upstream.port)
        defer { client.close() }
        let bytes = Array((body ?? "").utf8)
        client.send(
            "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
        client.send(bytes)
        guard let response = client.readResponse(), response.status < 300 else {
            throw HarnessError("\(method) \(target) failed")
        }
    }
}
