import Foundation
import ReshapeTestSupport
import XCTest

/// Issue 25 on the wire: `reshape serve` with a top-level `cors:`, a real demo upstream, raw
/// sockets. Every CORS header of preflights and of actual answers (JSON, problems, 304s,
/// event streams), and what is never CORS (admin endpoints, `cors: false`, unknown paths).
final class CORSTests: XCTestCase {
    var upstream: DemoUpstream!
    var server: ReshapeServer!
    let app = "http://app.test:8080"
    let subdomain = "http://shop.example.test"
    let stranger = "http://evil.test"

    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", timeout: 3s }
        cors:
          origins: ["http://app.test:8080", "http://*.example.test"]
          credentials: true
          max-age: 2m
          expose-headers: [X-Extra]
        types:
        \(UsersRules.userType())
        routes:
        \(UsersRules.route(upstream: "demo", options: ["live: true", "cache: { ttl: 30s, upstream-cache-control: ignore }"]))
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
            forward-headers: [Authorization, X-Tenant]
            transform: []
          - name: missing
            request: GET /missing
            upstream: demo
            path: /nothing-here
            transform: []
          - name: broken
            request: GET /broken
            upstream: demo
            path: /fault/status/500
            transform: []
          - name: limited
            request: GET /limited
            upstream: demo
            path: /fault/status/429
            forward-headers: [X-Tenant]
            transform: []
          - name: denied
            request: GET /denied
            upstream: demo
            path: /fault/status/401
            forward-headers: [Authorization]
            transform: []
          - name: report
            request: GET /report
            upstream: demo
            path: /echo/report
            cors: false
            transform: []
          - name: public
            request: GET /public
            upstream: demo
            path: /echo/public
            cors: { origins: ["*"] }
            transform: []
        """
    }

    override func setUpWithError() throws {
        upstream = try DemoUpstream()
        server = try ReshapeServer(
            rules: Self.rules(upstreamPort: upstream.port), arguments: ["--workers", "1", "--compress-min-bytes", "0"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    // MARK: - Preflights

    func testAPreflightFromAnAllowedOriginNamesMethodsHeadersAndMaxAge() throws {
        let get = try preflight("/users", origin: app, method: "GET")
        XCTAssertEqual(get.status, 204)
        XCTAssertTrue(get.body.isEmpty)
        XCTAssertEqual(get.header("Access-Control-Allow-Origin"), app)
        XCTAssertEqual(get.header("Access-Control-Allow-Credentials"), "true")
        XCTAssertEqual(Set(list(get.header("Access-Control-Allow-Methods"))), ["GET", "HEAD", "POST"])
        XCTAssertEqual(
            list(get.header("Access-Control-Allow-Headers")),
            ["If-None-Match", "If-Match", "Prefer", "Last-Event-ID", "traceparent", "tracestate"])
        XCTAssertEqual(get.header("Access-Control-Max-Age"), "120")
        XCTAssertEqual(get.header("Vary"), "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        XCTAssertNil(get.header("Content-Length"), "a 204 has no content")

        let post = try preflight("/users", origin: subdomain, method: "POST", headers: "content-type")
        XCTAssertEqual(post.header("Access-Control-Allow-Origin"), subdomain, "a *.example.test origin")
        XCTAssertEqual(list(post.header("Access-Control-Allow-Headers")).first, "Content-Type", "a write route")

        let me = try preflight("/me", origin: app, method: "GET", headers: "authorization,x-tenant")
        XCTAssertEqual(Array(list(me.header("Access-Control-Allow-Headers")).prefix(2)), ["Authorization", "X-Tenant"])
        XCTAssertEqual(list(me.header("Access-Control-Allow-Methods")), ["GET", "HEAD"])
        // A header outside the list is not refused here: the browser sees it missing and stops.
        let other = try preflight("/me", origin: app, method: "GET", headers: "x-other")
        XCTAssertEqual(other.header("Access-Control-Allow-Origin"), app)
        XCTAssertFalse(list(other.header("Access-Control-Allow-Headers")).contains("X-Other"))

        let metrics = try RawHTTP.get(port: server.adminPort, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="users",result="allowed"} 1"#), metrics)
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="me",result="allowed"} 1"#))
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="me",result="refused-headers"} 1"#))
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="create-user",result="allowed"} 1"#))
    }

    func testAPreflightFromAnotherOriginOrForAnotherMethodGetsNoCORSHeader() throws {
        for (origin, method, path) in [
            (stranger, "GET", "/users"), ("http://example.test", "GET", "/users"), (app, "DELETE", "/users"),
            (app, "GET", "/report"),
        ] {
            let answer = try preflight(path, origin: origin, method: method)
            XCTAssertEqual(answer.status, 204, "\(origin) \(method) \(path)")
            XCTAssertEqual(answer.headers.filter { $0.0.lowercased().hasPrefix("access-control-") }.count, 0)
            XCTAssertEqual(
                answer.header("Vary"), "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        }
        let metrics = try RawHTTP.get(port: server.adminPort, "/_reshape/metrics").text
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="users",result="refused-origin"} 2"#))
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="-",result="refused-method"} 1"#))
        XCTAssertTrue(metrics.contains(#"reshape_cors_preflights_total{route="report",result="refused-method"} 1"#))
    }

    func testNoPreflightReachesAnUpstream() throws {
        _ = try RawHTTP.get(port: upstream.port, "/_log?clear=1")
        for path in ["/users", "/me", "/broken", "/public", "/report"] {
            _ = try preflight(path, origin: app, method: "GET", headers: "authorization")
            _ = try preflight(path, origin: stranger, method: "GET")
        }
        XCTAssertEqual(try upstream.log().count, 0)
    }

    func testWhatIsNoPreflightIsAnsweredAsBefore() throws {
        let plain = try send("OPTIONS", "/users", ["Origin: \(app)"])
        XCTAssertEqual(plain.status, 405, "no Access-Control-Request-Method: not a preflight")
        XCTAssertNil(plain.header("Access-Control-Allow-Origin"))
        let unknown = try preflight("/nowhere", origin: app, method: "GET")
        XCTAssertEqual(unknown.status, 404, "a path no route serves")
        XCTAssertNil(unknown.header("Access-Control-Allow-Origin"))
        for path in ["/_reshape/metrics", "/_reshape/ready", "/_reshape/openapi.json"] {
            let admin = try preflight(path, origin: app, method: "GET")
            XCTAssertNil(admin.header("Access-Control-Allow-Origin"), path)
            let get = try send("GET", path, ["Origin: \(app)"])
            XCTAssertEqual(get.status, 200, path)
            XCTAssertTrue(get.headers.allSatisfy { !$0.0.lowercased().hasPrefix("access-control-") }, path)
            XCTAssertFalse((get.header("Vary") ?? "").contains("Origin"), path)
        }
    }

    // MARK: - Actual answers

    func testAJSONAnswerToAnAllowedOriginCanBeReadAndVaries() throws {
        let first = try send("GET", "/users", ["Origin: \(app)", "Accept-Encoding: gzip"])
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.header("Access-Control-Allow-Origin"), app)
        XCTAssertEqual(first.header("Access-Control-Allow-Credentials"), "true")
        XCTAssertEqual(first.header("Vary"), "Accept-Encoding, Origin", "merged into the one Vary")
        let exposed = Set(list(first.header("Access-Control-Expose-Headers")))
        XCTAssertTrue(exposed.isSuperset(of: ["ETag", "Reshape-Cache", "X-Extra"]), "\(exposed)")
        XCTAssertFalse(exposed.contains("Content-Type"), "safelisted")

        // The cached answer is shared by every origin: each gets its own, and none is stored.
        let hit = try send("GET", "/users", ["Origin: \(subdomain)"])
        XCTAssertEqual(hit.header("Reshape-Cache"), "hit")
        XCTAssertEqual(hit.header("Access-Control-Allow-Origin"), subdomain)
        XCTAssertTrue(Set(list(hit.header("Access-Control-Expose-Headers"))).isSuperset(of: ["Age", "ETag"]))
        for headers in [[], ["Origin: \(stranger)"]] {
            let other = try send("GET", "/users", headers)
            XCTAssertEqual(other.header("Reshape-Cache"), "hit")
            XCTAssertNil(other.header("Access-Control-Allow-Origin"), "\(headers)")
            XCTAssertNil(other.header("Access-Control-Expose-Headers"))
            XCTAssertEqual(other.header("Vary"), "Accept-Encoding, Origin", "it varies for them too")
        }
        XCTAssertEqual(try upstream.log().filter { ($0["target"] as? String) == "/users.json" }.count, 1)
    }

    func testA304CarriesTheCORSHeaders() throws {
        let first = try send("GET", "/users", ["Origin: \(app)"])
        let tag = try XCTUnwrap(first.header("ETag"))
        let again = try send("GET", "/users", ["Origin: \(app)", "If-None-Match: \(tag)"])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.header("Access-Control-Allow-Origin"), app)
        XCTAssertEqual(again.header("Access-Control-Allow-Credentials"), "true")
        XCTAssertTrue(list(again.header("Access-Control-Expose-Headers")).contains("ETag"))
        XCTAssertTrue(list(again.header("Vary")).contains("Origin"))
    }

    func testProblemsCarryTheCORSHeaders() throws {
        for (path, status) in [("/missing", 404), ("/broken", 502), ("/limited", 429), ("/denied", 401)] {
            let answer = try send("GET", path, ["Origin: \(app)"])
            XCTAssertEqual(answer.status, status, path)
            XCTAssertEqual(answer.header("Content-Type"), "application/problem+json", path)
            XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), app, path)
            XCTAssertEqual(answer.header("Access-Control-Allow-Credentials"), "true", path)
            XCTAssertEqual(answer.header("Vary"), "Accept-Encoding, Origin", path)
        }
        let limited = try send("GET", "/limited", ["Origin: \(app)"])
        XCTAssertEqual(limited.header("Retry-After"), "7")
        XCTAssertTrue(list(limited.header("Access-Control-Expose-Headers")).contains("Retry-After"))
    }

    func testARouteWithCORSOffOrItsOwnPolicy() throws {
        let report = try send("GET", "/report", ["Origin: \(app)"])
        XCTAssertEqual(report.status, 200)
        XCTAssertTrue(report.headers.allSatisfy { !$0.0.lowercased().hasPrefix("access-control-") })
        XCTAssertEqual(report.header("Vary"), "Accept-Encoding", "not on Origin")

        let open = try send("GET", "/public", ["Origin: \(stranger)"])
        XCTAssertEqual(open.header("Access-Control-Allow-Origin"), "*")
        XCTAssertNil(open.header("Access-Control-Allow-Credentials"))
        XCTAssertEqual(open.header("Vary"), "Accept-Encoding", "the same answer for every origin")
        XCTAssertEqual(try send("GET", "/public", []).header("Access-Control-Allow-Origin"), "*")
        let pre = try preflight("/public", origin: stranger, method: "GET")
        XCTAssertEqual(pre.header("Access-Control-Allow-Origin"), "*")
        XCTAssertNil(pre.header("Access-Control-Allow-Credentials"))
        XCTAssertEqual(pre.header("Access-Control-Max-Age"), "600", "the default")
    }

    func testAnEventStreamsHeadCarriesTheCORSHeaders() throws {
        let client = try EventStreamClient(port: server.port, "/users", headers: ["Origin: \(app)"])
        defer { client.close() }
        try client.readHead()
        XCTAssertEqual(client.status, 200)
        XCTAssertEqual(client.header("Content-Type"), "text/event-stream")
        XCTAssertEqual(client.header("Access-Control-Allow-Origin"), app)
        XCTAssertEqual(client.header("Access-Control-Allow-Credentials"), "true")
        XCTAssertEqual(client.header("Access-Control-Expose-Headers"), "X-Extra")
        XCTAssertEqual(client.header("Vary"), "Origin")
        XCTAssertNotNil(try client.expect("snapshot"))
        let stranger = try EventStreamClient(port: server.port, "/users", headers: ["Origin: \(self.stranger)"])
        defer { stranger.close() }
        try stranger.readHead()
        XCTAssertNil(stranger.header("Access-Control-Allow-Origin"))
        XCTAssertEqual(stranger.header("Vary"), "Origin")
    }

    // MARK: - Helpers

    func preflight(_ path: String, origin: String, method: String, headers: String? = nil) throws -> RawHTTP.Response {
        try send(
            "OPTIONS", path,
            ["Origin: \(origin)", "Access-Control-Request-Method: \(method)"]
                + (headers.map { ["Access-Control-Request-Headers: \($0)"] } ?? []))
    }

    func send(_ method: String, _ target: String, _ headers: [String]) throws -> RawHTTP.Response {
        var client = try RawHTTP(port: server.port)
        defer { client.close() }
        client.send(
            "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined()
                + "Connection: close\r\n\r\n")
        guard let response = client.readResponse(headOnly: method == "HEAD") else {
            throw HarnessError("no answer to \(method) \(target)")
        }
        return response
    }

    func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
