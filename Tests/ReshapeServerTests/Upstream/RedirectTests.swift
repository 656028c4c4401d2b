import Foundation
import ReshapeJSON
import ReshapeTestSupport
import XCTest

/// Redirects end to end: `reshape serve` in front of the demo upstream, whose second listener
/// `/redirect/N/` sends requests to as Firebase sends a stream to another machine, and a third
/// process standing for a host the rules do not name, whose log must stay empty.
final class RedirectTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var elsewhere: DemoUpstream!
    private var server: ReshapeServer!

    override func setUpWithError() throws {
        upstream = try DemoUpstream(arguments: ["--redirect-listen", "127.0.0.1:0", "--keep-alive", "0.5"])
        elsewhere = try DemoUpstream()
        server = try ReshapeServer(
            rules: Self.rules(upstream.port, redirectPort: try upstream.redirectPort(), elsewhere: elsewhere.port),
            arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
        elsewhere?.child.stop()
    }

    static func rules(_ port: Int, redirectPort: Int, elsewhere: Int) -> String {
        """
        upstreams:
          firebase:
            url: http://127.0.0.1:\(port)
            timeout: 3s
            headers: { X-Credential: operator-secret }
            redirects: { hosts: ["127.0.0.1:\(redirectPort)"] }
          closed:
            url: http://127.0.0.1:\(port)
            timeout: 3s
        routes:
          - { name: three-hops, request: "GET /three-hops", upstream: firebase, path: /redirect/3/users.json, transform: [] }
          - { name: four-hops, request: "GET /four-hops", upstream: firebase, path: /redirect/4/users.json, transform: [] }
          - name: elsewhere
            request: GET /elsewhere
            upstream: firebase
            path: /fault/redirect/307/127.0.0.1:\(elsewhere)/users.json
            transform: []
          - { name: plain-users, request: "GET /plain-users", upstream: closed, path: /users.json, transform: [] }
          - { name: relative, request: "GET /relative", upstream: firebase, path: /fault/redirect/302/-/users.json, transform: [] }
          - { name: not-followed, request: "GET /not-followed", upstream: closed, path: /redirect/1/users.json, transform: [] }
          - name: post-307
            request: POST /notes
            upstream: firebase
            path: /redirect/1/notes.json
            body: { encoding: json }
            transform: []
          - name: post-303
            request: POST /notes-303
            upstream: firebase
            path: /fault/redirect/303/127.0.0.1:\(redirectPort)/notes.json
            body: { encoding: json }
            transform: []
          - name: live-users
            request: GET /live-users
            upstream: firebase
            path: /redirect/1/users.json
            live: true
            transform:
              - keyed-to-array: { key: objectId, order: key }
              - wrap: objects
          - name: users-fetched
            request: GET /users-fetched
            upstream: firebase
            path: /users.json
            transform:
              - keyed-to-array: { key: objectId, order: key }
              - wrap: objects
          - name: live-elsewhere
            request: GET /live-elsewhere
            upstream: firebase
            path: /fault/redirect/307/127.0.0.1:\(elsewhere)/users.json
            live: true
            transform: []
        """
    }

    func testAFetchFollowsRedirectsUpToMaxWithItsCredentials() throws {
        let response = try RawHTTP.get(port: server.port, "/three-hops")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.text, try RawHTTP.get(port: server.port, "/plain-users").text)
        let hops = try upstream.entries("/redirect/")
        XCTAssertEqual(
            hops.map(\.target), ["/redirect/3/users.json", "/redirect/2/users.json", "/redirect/1/users.json"])
        let last = try XCTUnwrap(try upstream.entries("/users.json").first)
        XCTAssertEqual(
            last.header("Host"), "127.0.0.1:\(try upstream.redirectPort())", "the last hop went to the second host")
        XCTAssertEqual(last.header("X-Credential"), "operator-secret", "the upstream's headers go to an allowed host")
        XCTAssertEqual(try redirects("followed"), 3)
    }

    func testOneHopMoreThanMaxIsRefusedAndTheTargetNeverAsked() throws {
        let response = try RawHTTP.get(port: server.port, "/four-hops")
        XCTAssertEqual(response.status, 502, response.text)
        XCTAssertEqual(response.json["code"] as? String, "upstream-redirect-refused")
        XCTAssertTrue((response.json["detail"] as? String ?? "").contains("more than 3"), response.text)
        XCTAssertEqual(try upstream.entries("/redirect/").count, 4)
        XCTAssertEqual(try upstream.entries("/users.json").count, 0)
        XCTAssertEqual(try redirects("followed"), 3)
        XCTAssertEqual(try redirects("refused"), 1)
    }

    func testARedirectToAHostNotAllowedIsRefusedAndThatHostHearsNothing() throws {
        let response = try RawHTTP.get(port: server.port, "/elsewhere")
        XCTAssertEqual(response.status, 502, response.text)
        XCTAssertEqual(response.json["code"] as? String, "upstream-redirect-refused")
        XCTAssertTrue(
            (response.json["detail"] as? String ?? "").contains("http://127.0.0.1:\(elsewhere.port)"), response.text)
        XCTAssertFalse(response.text.contains("operator-secret"))
        XCTAssertEqual(try elsewhere.log().count, 0, "nothing was sent to the host the rules do not name")
        XCTAssertEqual(try redirects("refused"), 1)
    }

    func testARelativeLocationStaysOnTheUpstreamsOwnHost() throws {
        let response = try RawHTTP.get(port: server.port, "/relative")
        XCTAssertEqual(response.status, 200, response.text)
        let last = try XCTUnwrap(try upstream.entries("/users.json").first)
        XCTAssertEqual(last.header("Host"), "127.0.0.1:\(upstream.port)")
    }

    func testWithoutRedirectsNothingIsFollowed() throws {
        let response = try RawHTTP.get(port: server.port, "/not-followed")
        XCTAssertEqual(response.status, 502, response.text)
        XCTAssertEqual(response.json["code"] as? String, "upstream-status")
        XCTAssertEqual(response.json["upstream_status"] as? Int, 307)
        XCTAssertEqual(try upstream.entries("/users.json").count, 0)
        XCTAssertEqual(try redirects("followed"), 0)
    }

    func testA307KeepsAWritesMethodAndBody() throws {
        let response = try RawHTTP.request(
            port: server.port, "POST", "/notes", headers: ["Content-Type: application/json"], body: #"{"text":"hi"}"#)
        XCTAssertEqual(response.status, 201, response.text)
        let written = try XCTUnwrap(try upstream.entries("/notes.json").first)
        XCTAssertEqual(written.method, "POST")
        XCTAssertEqual(written.body, #"{"text":"hi"}"#)
        XCTAssertEqual(written.header("Host"), "127.0.0.1:\(try upstream.redirectPort())")
    }

    func testA303ToAWriteIsRefusedNeverTurnedIntoAGet() throws {
        let response = try RawHTTP.request(
            port: server.port, "POST", "/notes-303", headers: ["Content-Type: application/json"], body: #"{"a":1}"#)
        XCTAssertEqual(response.status, 502, response.text)
        XCTAssertEqual(response.json["code"] as? String, "upstream-redirect-refused")
        XCTAssertEqual(try upstream.entries("/notes.json").count, 0, "no GET (nor anything) followed the 303")
    }

    func testALiveStreamFollowsA307AndDeliversSnapshotAndPatches() throws {
        let client = try EventStreamClient(port: server.port, "/live-users")
        defer { client.close() }
        try client.readHead()
        XCTAssertEqual(client.status, 200)
        let snapshot = try client.expect("snapshot")
        XCTAssertEqual(snapshot.data, try RawHTTP.get(port: server.port, "/users-fetched").text)
        let stream = try XCTUnwrap(try upstream.entries("/users.json").first)
        XCTAssertEqual(stream.header("Host"), "127.0.0.1:\(try upstream.redirectPort())")
        XCTAssertEqual(stream.header("Accept"), "text/event-stream")

        var document = try JSON.parse(Array(snapshot.data.utf8))
        _ = try RawHTTP.request(
            port: upstream.port, "PATCH", "/users/-Nx2.json", headers: ["Content-Type: application/json"],
            body: #"{"age":32}"#)
        let event = try client.expect("patch")
        document = try patch(from: event.data).applied(to: document)
        XCTAssertEqual(
            String(decoding: document.serialized(), as: UTF8.self),
            try RawHTTP.get(port: server.port, "/users-fetched").text)
        XCTAssertEqual(try redirects("followed"), 1)
    }

    func testALiveStreamRedirectedToAHostNotAllowedEndsWithAnError() throws {
        let client = try EventStreamClient(port: server.port, "/live-elsewhere")
        defer { client.close() }
        try client.readHead()
        let error = try client.expect("error")
        XCTAssertTrue(error.data.contains(#""code":"upstream-redirect-refused""#), error.data)
        XCTAssertTrue(try client.waitForEnd())
        XCTAssertEqual(try elsewhere.log().count, 0)
    }

    private func redirects(_ result: String) throws -> Int {
        let text = try RawHTTP.get(port: server.port, "/_reshape/metrics").text
        let prefix = "reshape_upstream_redirects_total{upstream=\"firebase\",result=\"\(result)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? -1
    }
}

extension DemoUpstream {
    /// The port of the second listener `--redirect-listen` opened.
    func redirectPort() throws -> Int {
        guard let line = child.stdout.split(separator: "\n").first(where: { $0.hasPrefix("redirect listener on") }),
            let port = Int(line.split(separator: ":").last ?? "")
        else { throw HarnessError("no redirect listener in \(child.stdout)") }
        return port
    }
}
