import Foundation
import ReshapeTestSupport
import XCTest

/// Issue 19 end to end: what every answer of a real `reshape serve` (two workers, in front of
/// the real demo upstream) says about itself: `Date`, caching headers, `Vary`, HEAD, and the
/// content coding negotiated from `Accept-Encoding`, decompressed with Debian's own tools.
final class HTTPSemanticsTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: ReshapeServer!

    static func rules(upstreamPort: Int) -> String {
        """
        upstreams:
          demo: { url: "http://127.0.0.1:\(upstreamPort)", timeout: 3s }
        routes:
          - name: echo
            request: GET /echo/{tag}
            upstream: demo
            path: /echo/{tag}
            forward-query: [pad]
            transform: [ { keep: [path, query] } ]
          - name: cached
            request: GET /cached/{tag}
            upstream: demo
            path: /echo/{tag}
            forward-query: [pad]
            cache: { ttl: 30s }
            transform: [ { keep: [path, query] } ]
          - name: mine
            request: GET /mine/{tag}
            upstream: demo
            path: /echo/{tag}
            forward-query: [pad]
            forward-headers: [Authorization, X-Tenant]
            transform: [ { keep: [path, query] } ]
          - name: mine-cached
            request: GET /mine-cached/{tag}
            upstream: demo
            path: /echo/{tag}
            forward-headers: [Authorization]
            cache: { ttl: 30s }
            transform: [ { keep: [path] } ]
          - name: failing
            request: GET /failing
            upstream: demo
            path: /fault/status/500
            transform: []
          - name: hanging
            request: GET /hanging
            upstream: demo
            path: /fault/hang
            timeout: 300ms
            transform: []
        """
    }

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            server = try ReshapeServer(rules: rules(upstreamPort: upstream.port))
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

    /// A query that makes the echoed answer about `bytes` long (JSON-like, so it compresses).
    private func pad(_ bytes: Int) -> String {
        "?pad=" + String(repeating: "user-record-", count: bytes / 12)
    }

    private func get(_ target: String, _ headers: [String] = []) throws -> RawHTTP.Response {
        try RawHTTP.get(port: port, target, headers: headers)
    }

    private func head(_ target: String, _ headers: [String] = []) throws -> RawHTTP.Response {
        var client = try RawHTTP(port: port)
        defer { client.close() }
        client.send(
            "HEAD \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined()
                + "Connection: close\r\n\r\n")
        guard let response = client.readResponse(headOnly: true) else { throw HarnessError("no answer to HEAD") }
        return response
    }

    private func decompress(_ bytes: [UInt8], with tool: String) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-\(UUID().uuidString).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool, "-d", "-c", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool) -d refused the body")
        return [UInt8](data)
    }

    private func assertDate(
        _ response: RawHTTP.Response, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let value = response.header("Date") else { return XCTFail("no Date on \(what)", file: file, line: line) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else {
            return XCTFail("\(value) is no IMF-fixdate", file: file, line: line)
        }
        XCTAssertLessThan(abs(date.timeIntervalSinceNow), 5, "\(what): \(value)", file: file, line: line)
    }

    // MARK: - Date and caching headers

    func testEveryKindOfAnswerCarriesADate() throws {
        let ok = try get("/echo/date")
        XCTAssertEqual(ok.status, 200)
        assertDate(ok, "a 200")
        let notModified = try get("/echo/date", ["If-None-Match: \(try XCTUnwrap(ok.header("ETag")))"])
        XCTAssertEqual(notModified.status, 304)
        assertDate(notModified, "a 304")
        let missing = try get("/no/such/path")
        XCTAssertEqual(missing.status, 404)
        assertDate(missing, "a 404")
        let failing = try get("/failing")
        XCTAssertEqual(failing.status, 502)
        assertDate(failing, "a 502")
        assertDate(try get("/_reshape/live"), "an admin answer")
        assertDate(try get("/_reshape/metrics"), "the metrics")
        var client = try RawHTTP(port: port)
        defer { client.close() }
        client.send("GARBAGE\r\n\r\n")
        let refused = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(refused.status, 400)
        assertDate(refused, "a refusal")
    }

    func testRoutesSayHowLongTheirAnswersMayBeReused() throws {
        XCTAssertEqual(try get("/echo/fresh").header("Cache-Control"), "no-cache")
        let cached = try get("/cached/fresh")
        XCTAssertEqual(cached.header("Cache-Control"), "max-age=30")
        XCTAssertNil(cached.header("Vary"), "small and not forwarding: nothing to vary on")
        // Until the answer has aged a second: each look is a hit, which does not change it.
        try waitUntil(timeout: 3) { try get("/cached/fresh").header("Cache-Control") != "max-age=30" }
        let hit = try get("/cached/fresh")
        XCTAssertEqual(hit.header("Reshape-Cache"), "hit")
        XCTAssertTrue(["max-age=28", "max-age=29"].contains(hit.header("Cache-Control") ?? ""), "\(hit.headers)")
    }

    func testAForwardingRouteIsPrivateAndVariesOnTheForwardedHeaders() throws {
        let mine = try get("/mine/a", ["Authorization: Bearer ada"])
        XCTAssertEqual(mine.header("Cache-Control"), "private, no-cache")
        XCTAssertEqual(mine.header("Vary"), "Authorization, X-Tenant")
        let cached = try get("/mine-cached/a", ["Authorization: Bearer ada"])
        XCTAssertEqual(cached.header("Cache-Control"), "private, max-age=30")
        XCTAssertEqual(cached.header("Vary"), "Authorization")
        let big = try get("/mine/b" + pad(3000), ["Authorization: Bearer ada", "Accept-Encoding: gzip"])
        XCTAssertEqual(big.headers.filter { $0.0 == "Vary" }.map(\.1), ["Authorization, X-Tenant, Accept-Encoding"])
    }

    func testProblemsAndAdminAnswersAreNoStore() throws {
        for target in [
            "/no/such/path", "/failing", "/hanging", "/_reshape/live", "/_reshape/ready", "/_reshape/metrics",
        ] {
            let response = try get(target)
            XCTAssertEqual(response.header("Cache-Control"), "no-store", "\(target): \(response.status)")
        }
        XCTAssertEqual(try get("/hanging").status, 504)
    }

    func testHeadGetsExactlyTheHeadersOfGet() throws {
        for (target, headers) in [
            ("/echo/head" + pad(3000), ["Accept-Encoding: gzip"]), ("/echo/head" + pad(3000), []),
            ("/mine/head", ["Authorization: Bearer ada"]), ("/no/such/path", []),
        ] {
            let get = try self.get(target, headers)
            let head = try self.head(target, headers)
            XCTAssertEqual(head.status, get.status)
            let comparable = { (response: RawHTTP.Response) in
                response.headers.filter { $0.0 != "Date" }.map { "\($0.0): \($0.1)" }
            }
            XCTAssertEqual(comparable(head), comparable(get), target)
            XCTAssertNotNil(head.header("Content-Length"))
        }
        let gzipHead = try head("/echo/head" + pad(3000), ["Accept-Encoding: gzip"])
        XCTAssertEqual(gzipHead.header("Content-Encoding"), "gzip")
        XCTAssertEqual(gzipHead.header("Vary"), "Accept-Encoding")
    }

    // MARK: - Compression

    func testEachCodingDecompressesToTheIdentityBytes() throws {
        let target = "/echo/codings" + pad(4000)
        let identity = try get(target)
        XCTAssertNil(identity.header("Content-Encoding"))
        XCTAssertEqual(identity.header("Vary"), "Accept-Encoding")
        let identityTag = try XCTUnwrap(identity.header("ETag"))
        for (coding, tool) in [("gzip", "gzip"), ("br", "brotli"), ("zstd", "zstd")] {
            let encoded = try get(target, ["Accept-Encoding: \(coding)"])
            XCTAssertEqual(encoded.header("Content-Encoding"), coding)
            XCTAssertEqual(encoded.header("Vary"), "Accept-Encoding")
            XCTAssertEqual(encoded.header("Content-Type"), "application/json")
            XCTAssertEqual(encoded.header("ETag"), String(identityTag.dropLast()) + "-\(coding)\"")
            XCTAssertLessThan(encoded.body.count * 4, identity.body.count, coding)
            XCTAssertEqual(try decompress(encoded.body, with: tool), identity.body, coding)
        }
    }

    func testQValuesChooseTheCoding() throws {
        let target = "/echo/q" + pad(3000)
        let cases: [(String, String?)] = [
            ("gzip, deflate, br, zstd", "zstd"), ("gzip;q=1, br;q=0.5", "gzip"), ("br;q=0.9, zstd;q=0.8", "br"),
            ("gzip;q=0", nil), ("identity", nil), ("*;q=0.1, gzip;q=0.5", "gzip"), ("deflate", nil),
        ]
        for (header, expected) in cases {
            XCTAssertEqual(try get(target, ["Accept-Encoding: \(header)"]).header("Content-Encoding"), expected, header)
        }
    }

    func testSmallAnswersAreSentAsTheyAre() throws {
        let small = try get("/echo/small", ["Accept-Encoding: gzip, br, zstd"])
        XCTAssertEqual(small.status, 200)
        XCTAssertLessThan(small.body.count, 1024)
        XCTAssertNil(small.header("Content-Encoding"))
        XCTAssertNil(small.header("Vary"))
    }

    func testIfNoneMatchIsPerRepresentation() throws {
        let target = "/echo/tags" + pad(3000)
        let gzip = try get(target, ["Accept-Encoding: gzip"])
        let gzipTag = try XCTUnwrap(gzip.header("ETag"))
        let again = try get(target, ["Accept-Encoding: gzip", "If-None-Match: \(gzipTag)"])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.header("ETag"), gzipTag)
        XCTAssertEqual(again.header("Vary"), "Accept-Encoding")
        XCTAssertTrue(again.body.isEmpty)
        let other = try get(target, ["Accept-Encoding: zstd", "If-None-Match: \(gzipTag)"])
        XCTAssertEqual(other.status, 200, "it holds gzip bytes and asked for zstd")
        XCTAssertEqual(other.header("Content-Encoding"), "zstd")
        XCTAssertEqual(try get(target, ["If-None-Match: \(gzipTag)"]).status, 200, "nor does identity match it")
    }

    /// The cache's byte count, from the metrics: each coding's bytes are added once, when first made.
    private func cacheBytes() throws -> Int {
        let text = try get("/_reshape/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("reshape_cache_bytes ") }),
            let value = Int(line.split(separator: " ")[1])
        else { throw HarnessError("no reshape_cache_bytes in\n\(text)") }
        return value
    }

    func testACachedAnswerIsCompressedOncePerCoding() throws {
        let target = "/cached/once" + pad(6000)
        let miss = try get(target)
        XCTAssertEqual(miss.header("Reshape-Cache"), "miss")
        let before = try cacheBytes()
        let gzip = try get(target, ["Accept-Encoding: gzip"])
        XCTAssertEqual(gzip.header("Reshape-Cache"), "hit")
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        // Besides each coding's bytes, a hit's head is kept with the entry (a few hundred
        // bytes, counted too: docs/caching.md, "The hit path").
        let afterGzip = try cacheBytes()
        XCTAssert((1...1024).contains(afterGzip - before - gzip.body.count), "the gzip bytes are kept with the entry")
        for _ in 0..<5 {
            let again = try get(target, ["Accept-Encoding: gzip"])
            XCTAssertEqual(again.body, gzip.body)
        }
        // Only a head of a later second replaces the kept one: its ages' digits may differ.
        XCTAssertLessThanOrEqual(abs(try cacheBytes() - afterGzip), 4, "hits compress nothing more")
        let afterHits = try cacheBytes()
        let br = try get(target, ["Accept-Encoding: br"])
        XCTAssert((1...1024).contains(try cacheBytes() - afterHits - br.body.count), "the br bytes and head")
        XCTAssertEqual(try decompress(gzip.body, with: "gzip"), miss.body)
        XCTAssertEqual(try decompress(br.body, with: "brotli"), miss.body)
    }
}
