import Foundation
import ReshapeTestSupport
import XCTest

/// A real `reshape serve` in front of the real demo upstream, over loopback sockets.
final class ProxyEndToEndTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: ReshapeServer!
    static let secret = "s3cr3t-token-value"

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            server = try ReshapeServer(
                rules: TestRules.rules(upstreamPort: upstream.port),
                arguments: [
                    "--max-url-bytes", "2048", "--max-header-bytes", "4096", "--header-timeout", "700",
                    "--max-body-bytes", "1000",
                ],
                environment: ["TEST_SECRET_TOKEN": secret])
        } catch {
            XCTFail("could not start the servers: \(error)")
        }
    }

    override class func tearDown() {
        server?.stop()
        upstream?.child.stop()
        super.tearDown()
    }

    private var port: Int { Self.server.port }

    func testKeyedCollectionIsNormalizedAndInvalidRecordsDropped() throws {
        let response = try RawHTTP.get(port: port, "/users")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let objects = try XCTUnwrap(response.json["objects"] as? [[String: Any]])
        XCTAssertEqual(
            objects.map { $0["objectId"] as? String },
            objects.map { $0["objectId"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") })
        XCTAssertTrue(objects.allSatisfy { ($0["name"] as? String ?? "").isEmpty == false })
        XCTAssertEqual(
            Int(response.header("Reshape-Dropped") ?? "0"), 4, "empty name, age as a string, negative age, no name")
        XCTAssertEqual(objects.first?["objectId"] as? String, "-NqK3a9Xb2mLp0Rt7Yv1")
    }

    func testUpstreamConnectionsAreKeptAliveAndCounted() throws {
        func opened() throws -> Int {
            let metrics = try RawHTTP.get(port: port, "/_reshape/metrics").text
            let line = try XCTUnwrap(
                metrics.split(separator: "\n").first { $0.hasPrefix("reshape_upstream_connections_opened_total ") })
            return try XCTUnwrap(Int(line.split(separator: " ").last ?? ""))
        }
        _ = try RawHTTP.get(port: port, "/users")  // each worker may need one connection first
        _ = try RawHTTP.get(port: port, "/users")
        let before = try opened()
        for _ in 0..<40 { XCTAssertEqual(try RawHTTP.get(port: port, "/users").status, 200) }
        // Two workers, each with its own connection cache: at most one new connection each
        // (if the upstream closed an idle one), never one per request.
        XCTAssertLessThanOrEqual(try opened() - before, 2)
        XCTAssertGreaterThanOrEqual(before, 1)
    }

    func testPathParametersAreEncodedAndNeverEscapeTheRulePath() throws {
        for hostile in [
            "..%2F..%2Fetc%2Fpasswd", "a%40evil.com", "x%23frag", "q%3Fa%3D1", "%00", "a%0D%0AX-Injected:%201",
        ] {
            let response = try RawHTTP.get(port: port, "/echo/\(hostile)")
            XCTAssertEqual(response.status, 200, "\(hostile): \(response.text)")
            let target = try XCTUnwrap(
                response.json["target"] as? String ?? response.json["rawTarget"] as? String, response.text)
            XCTAssertTrue(target.hasPrefix("/echo/"), target)
            XCTAssertFalse(target.dropFirst("/echo/".count).contains("/"), target)
            XCTAssertFalse(
                target.contains("#") || target.contains("?") || target.contains("@") || target.contains("\r"), target)
        }
        for dots in ["..", "."] {
            let response = try RawHTTP.get(port: port, "/echo/\(dots)")
            XCTAssertEqual(response.status, 400, "\(dots): \(response.text)")
            XCTAssertEqual(response.json["code"] as? String, "bad-parameter")
        }
    }

    func testOnlyNamedQueryParametersAndRuleHeadersReachTheUpstream() throws {
        let response = try RawHTTP.get(port: port, "/echo/abc?keep=1%202&drop=secret", headers: ["Cookie: session=1"])
        XCTAssertEqual(response.status, 200)
        let target = response.json["target"] as? String ?? response.json["rawTarget"] as? String ?? ""
        XCTAssertTrue(target.contains("keep=1%202"), target)
        XCTAssertFalse(target.contains("drop"), target)
        XCTAssertTrue(response.text.contains("Bearer \(Self.secret)"), "the rule's header is sent upstream")
        XCTAssertFalse(response.text.contains("session=1"), "client headers are not forwarded")
    }

    func testErrorStatusesAreProblemDetails() throws {
        let cases: [(String, Int, String)] = [
            ("/nope", 404, "no-route"), ("/status500", 502, "upstream-status"), ("/html", 502, "upstream-not-json"),
            ("/invalid", 502, "upstream-invalid-json"), ("/big", 502, "upstream-too-large"),
            ("/refused", 502, "upstream-unreachable"), ("/one/-NoSuchUserId000000", 404, "not-found"),
            ("/reset", 502, "upstream-failed"), ("/missing", 404, "upstream-not-found"),
        ]
        for (path, status, code) in cases {
            let response = try RawHTTP.get(port: port, path)
            XCTAssertEqual(response.status, status, "\(path): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json", path)
            XCTAssertEqual(response.json["code"] as? String, code, "\(path): \(response.text)")
            XCTAssertEqual(response.json["status"] as? Int, status, path)
            XCTAssertFalse(response.text.contains(Self.secret), "\(path) leaks the secret")
        }
        let invalid = try RawHTTP.get(port: port, "/invalid")
        XCTAssertEqual(invalid.json["line"] as? Int, 3, invalid.text)
        XCTAssertEqual(invalid.json["column"] as? Int, 5, invalid.text)
    }

    func testGzipFromTheUpstreamIsDecoded() throws {
        let response = try RawHTTP.get(port: port, "/gzip")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertFalse(response.json.isEmpty, response.text)
    }

    func testHangingUpstreamTimesOutWith504() throws {
        let started = Date()
        let response = try RawHTTP.get(port: port, "/hang")
        XCTAssertEqual(response.status, 504, response.text)
        XCTAssertEqual(response.json["code"] as? String, "upstream-timeout")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testMethodNotAllowedNamesTheAllowedMethods() throws {
        var client = try RawHTTP(port: port)
        defer { client.close() }
        client.send("POST /users HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 405)
        XCTAssertEqual(response.header("Allow"), "GET, HEAD")
        XCTAssertEqual(response.json["code"] as? String, "method-not-allowed")
    }

    func testEveryNormalizedAnswerHasATagAndAMatchingRequestGets304() throws {
        var client = try RawHTTP(port: port)
        defer { client.close() }
        client.send("GET /users HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(first.status, 200)
        let tag = try XCTUnwrap(first.header("ETag"), first.text)
        // On the same connection: the 304 has no body and no length, and the next answer is framed right.
        client.send(
            "GET /users HTTP/1.1\r\nHost: x\r\nIf-None-Match: W/\(tag)\r\n\r\nGET /users HTTP/1.1\r\nHost: x\r\n\r\n")
        let cached = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(cached.status, 304)
        XCTAssertEqual(cached.header("ETag"), tag)
        XCTAssertNil(cached.header("Content-Length"))
        XCTAssertTrue(cached.body.isEmpty)
        let next = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(next.header("ETag"), tag, "the same upstream answer gives the same tag")
        XCTAssertEqual(next.body, first.body)
    }

    func testKeepAlivePipeliningAndHeadAnswerInOrder() throws {
        var client = try RawHTTP(port: port)
        defer { client.close() }
        client.send(
            "GET /slow?ms=300 HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nHEAD /users HTTP/1.1\r\nHost: x\r\n\r\nGET /users HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        let slow = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(slow.status, 200, "the slow response comes first although /nope was ready sooner")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).status, 404)
        let head = try XCTUnwrap(client.readResponse(headOnly: true))
        XCTAssertEqual(head.status, 200)
        let get = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(head.header("Content-Length"), get.header("Content-Length"), "HEAD gives the GET's length")
        XCTAssertNil(get.header("Connection"))
    }

    func testHTTP10ClosesAfterTheResponse() throws {
        let client = try RawHTTP(port: port, timeout: 3)
        defer { client.close() }
        client.send("GET /nope HTTP/1.0\r\n\r\n")
        let data = client.readAll()  // returns only because the server closed
        XCTAssertTrue(String(decoding: data, as: UTF8.self).hasPrefix("HTTP/1.1 404"))
    }

    func testVersionsOtherThanHTTP10And11Get505AndTheConnectionCloses() throws {
        let cases = [
            ("GET /users HTTP/9.9\r\nHost: x\r\n\r\n", 505, "http-version-not-supported"),
            ("GET /users HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http-version-not-supported"),
            ("GET /users HTTP/1.2\r\nHost: x\r\n\r\n", 505, "http-version-not-supported"),
            ("GET /users\r\n\r\n", 505, "http-version-not-supported"),  // HTTP/0.9 style: http_parser reads it as 0.9
            // HTTP/2's preface: http_parser knows no PRI method.
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "bad-request"),
            // Found by fuzz-http (fuzz/crashes/http-connect-with-content-length.bin): http_parser
            // ends a CONNECT at its head, so its declared body was never read. Not a forward proxy.
            ("CONNECT ers HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 400, "bad-request"),
        ]
        for (request, status, code) in cases {
            let client = try RawHTTP(port: port, timeout: 3)
            defer { client.close() }
            // A good request behind it on the same connection must not be answered.
            client.send(request + "GET /users HTTP/1.1\r\nHost: x\r\n\r\n")
            let started = Date()
            var data = client.readAll()  // returns early only because the server closed
            XCTAssertLessThan(
                Date().timeIntervalSince(started), 2, "\(request.debugDescription): the connection was not closed")
            let response = try XCTUnwrap(RawHTTP.parse(&data), "no answer to \(request.debugDescription)")
            XCTAssertEqual(response.status, status, "\(request.debugDescription): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
            XCTAssertEqual(response.json["code"] as? String, code)
            XCTAssertEqual(response.header("Connection"), "close")
            XCTAssertTrue(
                data.isEmpty,
                "\(request.debugDescription): nothing may follow the refusal: \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// A read's head pieces are counted together: a request with too many fields behind a good
    /// one in the same write is refused after the good one is answered, and a head that passes
    /// a limit within one read is refused at once, without waiting for its end or a timeout.
    func testHeadLimitsHoldForPiecesCountedTogether() throws {
        var client = try RawHTTP(port: port, timeout: 3)
        defer { client.close() }
        client.send(
            "GET /_reshape/live HTTP/1.1\r\nHost: a\r\n\r\nGET /users HTTP/1.1\r\n"
                + (0..<150).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).status, 200)
        let refused = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(refused.status, 431, refused.text)
        XCTAssertEqual(refused.header("Connection"), "close")

        var unfinished = try RawHTTP(port: port, timeout: 3)
        defer { unfinished.close() }
        let started = Date()
        // No blank line: the head never ends, and the header timeout is 10 s.
        unfinished.send("GET /users HTTP/1.1\r\n" + (0..<150).map { "X-\($0): v\r\n" }.joined())
        let answer = try XCTUnwrap(unfinished.readResponse())
        XCTAssertEqual(answer.status, 431, answer.text)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testMalformedAndOversizedRequestsGetClearErrors() throws {
        let cases: [(String, Int)] = [
            ("GARBAGE\r\n\r\n", 400),
            ("GET /users HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("GET /users HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
            ("POST /users HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("GET /\(String(repeating: "a", count: 3000)) HTTP/1.1\r\n\r\n", 414),
            ("POST /users HTTP/1.1\r\nContent-Length: 2000\r\n\r\n" + String(repeating: "x", count: 2000), 413),
            (
                "POST /users HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n"
                    + String(repeating: "x", count: 2000) + "\r\n0\r\n\r\n", 413
            ),
            ("GET /users HTTP/1.1\r\nX-Big: \(String(repeating: "b", count: 5000))\r\n\r\n", 431),
            ("GET /users HTTP/1.1\r\n" + (0..<150).map { "X-\($0): v\r\n" }.joined() + "\r\n", 431),
        ]
        for (request, status) in cases {
            var client = try RawHTTP(port: port, timeout: 3)
            defer { client.close() }
            client.send(request)
            let response = try XCTUnwrap(client.readResponse(), "no answer to \(request.prefix(60))")
            XCTAssertEqual(response.status, status, "\(request.prefix(60)): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
            XCTAssertEqual(response.header("Connection"), "close")
        }
        // The server still works afterwards.
        XCTAssertEqual(try RawHTTP.get(port: port, "/users").status, 200)
    }

    func testSlowLorisClientIsCutOffWith408() throws {
        var client = try RawHTTP(port: port, timeout: 5)
        defer { client.close() }
        client.send("GET /users HTTP/1.1\r\nHost: x\r\n")
        let started = Date()
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 408)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testClientDisconnectCancelsTheUpstreamTransfer() throws {
        _ = try RawHTTP.get(port: Self.upstream.port, "/_log?clear=1")
        let client = try RawHTTP(port: port)
        client.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        try Self.upstream.waitForRequest("/fault/hang")
        client.close()
        let aborted = try waitUntil(timeout: 1.0) {  // well before the 1.5 s upstream timeout
            try Self.upstream.log().contains {
                ($0["target"] as? String ?? "").hasPrefix("/fault/hang") && ($0["clientAborted"] as? Bool) == true
            }
        }
        let log = try Self.upstream.log()
        XCTAssertTrue(aborted, "the upstream saw the proxy abandon /fault/hang: \(log)")
    }

    func testAdminEndpoints() throws {
        XCTAssertEqual(try RawHTTP.get(port: port, "/_reshape/live").status, 200)
        let ready = try RawHTTP.get(port: port, "/_reshape/ready")
        XCTAssertEqual(ready.status, 200)
        _ = try RawHTTP.get(port: port, "/users")
        let metrics = try RawHTTP.get(port: port, "/_reshape/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.text.contains("reshape_requests_total{route=\"users\",status=\"200\"}"), metrics.text)
        XCTAssertTrue(
            metrics.text.contains("reshape_dropped_elements_total{route=\"users\",type=\"User\"}"), metrics.text)
        XCTAssertTrue(metrics.text.contains("reshape_rules_info{digest="), metrics.text)
    }

    func testAccessLogHasOneJSONLinePerRequestAndNoSecrets() throws {
        _ = try RawHTTP.get(port: port, "/echo/logged?keep=zzz")
        waitUntil { Self.server.child.stdout.contains("/echo/logged") }
        let lines = Self.server.child.stdout.split(separator: "\n")
        let line = try XCTUnwrap(lines.last { $0.contains("\"route\":\"echo\"") && $0.contains("/echo/logged") })
        let entry = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(entry["status"] as? Int, 200)
        XCTAssertEqual(entry["upstream_status"] as? Int, 200)
        XCTAssertNotNil(entry["duration_ms"])
        XCTAssertFalse(Self.server.child.stdout.contains(Self.secret))
        XCTAssertFalse(Self.server.child.stderr.contains(Self.secret))
        XCTAssertFalse(String(line).contains("zzz"), "query values are not logged")
    }
}
