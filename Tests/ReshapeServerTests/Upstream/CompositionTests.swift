import Foundation
import ReshapeJSON
import ReshapeProxy
import ReshapeRules
import ReshapeSchema
import ReshapeServer
import ReshapeTestSupport
import XCTest

/// Issue 9 end to end: an in-process server (`EmbeddedServer`, rules built in code) in front of
/// the real demo upstream process, over loopback sockets. The upstream's log says what it was
/// sent, when each request started and was answered, and when it saw a connection close.
final class CompositionTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!
    nonisolated(unsafe) static var server: EmbeddedServer!
    static let operatorToken = "operator-token-value"
    static let adaId = "-NqK3a9Xb2mLp0Rt7Yv1"

    static func ruleSet(upstreamPort: Int) throws -> RuleSet {
        let pipelines = try loadedPipelines(
            """
            upstreams:
              demo: { url: "http://127.0.0.1:\(upstreamPort)" }
            routes:
              - { name: posts, request: GET /posts, upstream: demo, path: /posts.json, transform: [ { keyed-to-array: { key: postId, order: key } } ] }
              - { name: strip-admin, request: GET /strip, upstream: demo, path: /x.json, transform: [ { drop: [admin] } ] }
            """)
        let newUser = try XCTUnwrap(
            try SchemaSet(types: [
                (
                    name: "NewUser",
                    schema: try JSON.parse(
                        Array(
                            """
                            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0}}}
                            """.utf8))
                )
            ]).validator(named: "NewUser"))
        let demo = Upstream(
            name: "demo", scheme: "http", host: "127.0.0.1", port: upstreamPort, basePath: "",
            timeoutMilliseconds: 3000, connectTimeoutMilliseconds: 1000,
            headers: [NameValue(name: "X-Operator", value: operatorToken)], secrets: [operatorToken])
        func expand(_ path: String, concurrency: Int) -> [ExpandStage] {
            [
                ExpandStage(
                    expand: ExpandRule(
                        key: "authorId", fetch: fetch("", path), member: "author", concurrency: concurrency),
                    then: Pipeline(steps: []))
            ]
        }
        let everyHopByHop = [
            "Connection", "Keep-Alive", "TE", "Transfer-Encoding", "Upgrade", "Proxy-Authorization",
            "Proxy-Connection", "Host", "Content-Length", "Content-Type", "Expect",
        ]
        let routes = [
            route(
                "fanout", "GET", "/fanout/{id}",
                fetches: [
                    fetch("user", "/delay/500/users/{id}.json"),
                    fetch("devices", "/delay/500/devices/{id}.json"),
                ]),
            route(
                "fanout-leave", "GET", "/fanout-leave/{tag}",
                fetches: [
                    fetch("a", "/fault/hang/{tag}/a"),
                    fetch("b", "/delay/5000/{tag}/b.json"),
                ]),
            route(
                "fail-fast", "GET", "/fail-fast/{tag}",
                fetches: [
                    fetch("user", "/delay/200/fault/status/500/{tag}"),
                    fetch("devices", "/delay/5000/{tag}/devices.json"),
                ]),
            route(
                "optional", "GET", "/optional/{id}",
                fetches: [
                    fetch("user", "/users/{id}.json"),
                    fetch("devices", "/fault/status/500", optional: true),
                ]),
            route(
                "posts", "GET", "/posts/{tag}", fetches: [fetch("", "/posts.json")], pipeline: pipelines["posts"]!,
                stages: expand("/delay/150/users/{value}.json", concurrency: 2)),
            route(
                "posts-leave", "GET", "/posts-leave/{tag}", fetches: [fetch("", "/posts.json")],
                pipeline: pipelines["posts"]!,
                stages: expand("/fault/hang/{tag}/{value}", concurrency: 3)),
            route(
                "headers", "GET", "/headers/{tag}", fetches: [fetch("", "/echo/{tag}")],
                forwardHeaders: ["authorization", "X-Request-Id"] + everyHopByHop,
                headers: [HeaderRule(name: "X-Client", value: "reshape")]),
            route("plain", "GET", "/plain/{tag}", fetches: [fetch("", "/echo/{tag}")]),
            route(
                "create", "POST", "/users", fetches: [fetch("", "/users.json")], forwardHeaders: ["Authorization"],
                body: BodyRule(typeName: "NewUser", validator: newUser, transform: pipelines["strip-admin"]!)),
            route("form", "POST", "/form/{tag}", fetches: [fetch("", "/echo/{tag}")], body: BodyRule(encoding: .form)),
            route(
                "form-listing", "POST", "/form-listing/{tag}", fetches: [fetch("", "/echo/{tag}")],
                forwardHeaders: ["Content-Type", "Expect"], body: BodyRule(encoding: .form)),
            route(
                "verdict", "GET", "/verdict/{status}", fetches: [fetch("", "/fault/status/{status}")],
                forwardHeaders: ["Authorization"]),
            route("plain-verdict", "GET", "/plain-verdict/{status}", fetches: [fetch("", "/fault/status/{status}")]),
            route(
                "timeout", "GET", "/timeout/{tag}",
                fetches: [fetch("a", "/fault/hang/{tag}/a"), fetch("b", "/fault/hang/{tag}/b")],
                timeoutMilliseconds: 300),
        ]
        return RuleSet(upstreams: ["demo": demo], routes: routes, digest: "composition-tests")
    }

    override class func setUp() {
        super.setUp()
        do {
            upstream = try DemoUpstream()
            var limits = ServerLimits()
            limits.bodyTimeoutMilliseconds = 500
            server = try EmbeddedServer(
                ruleSet: try ruleSet(upstreamPort: upstream.port),
                configuration: ServerConfiguration(
                    rulesPath: "(in code)", listenPort: 0, workers: 2,
                    limits: limits, accessLog: false))
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
    private var upstream: DemoUpstream { Self.upstream }
    private func tag() -> String { "t" + UUID().uuidString.prefix(8).lowercased() }

    // MARK: - Fan-out

    func testFetchesOfARouteRunInParallel() throws {
        let started = Date()
        let response = try RawHTTP.get(port: port, "/fanout/\(Self.adaId)")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertLessThan(elapsed, 0.9, "two 500 ms fetches took \(elapsed) s: not in parallel")
        XCTAssertGreaterThanOrEqual(elapsed, 0.5)
        XCTAssertEqual((response.json["user"] as? [String: Any])?["name"] as? String, "Ada Lovelace", response.text)
        XCTAssertEqual((response.json["devices"] as? [String: Any])?.count, 2, response.text)
    }

    func testClientLeavingCancelsEveryFetchAndTheUpstreamSeesTheClose() throws {
        let tag = tag()
        let client = try RawHTTP(port: port)
        client.send("GET /fanout-leave/\(tag) HTTP/1.1\r\nHost: x\r\n\r\n")
        try upstream.waitForEntries("/fault/hang/\(tag)", count: 1)
        try upstream.waitForEntries("/delay/5000/\(tag)", count: 1)
        let left = monotonicNowMilliseconds()
        client.close()
        let ended = try upstream.waitForAllEnded("/fault/hang/\(tag)") + upstream.waitForAllEnded("/delay/5000/\(tag)")
        XCTAssertEqual(ended.count, 2)
        for entry in ended {
            XCTAssertTrue(entry.clientAborted, "\(entry.target) was not abandoned")
            XCTAssertLessThan((entry.endedMs ?? .max) - left, 1000, "\(entry.target): the close came late")
        }
    }

    func testARequiredFetchFailingAnswers502NamingItAndCancelsTheOthers() throws {
        let tag = tag()
        let started = Date()
        let response = try RawHTTP.get(port: port, "/fail-fast/\(tag)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "the answer did not wait for the slow fetch")
        XCTAssertEqual(response.status, 502, response.text)
        XCTAssertEqual(response.json["code"] as? String, "fetch-failed")
        XCTAssertEqual(response.json["fetch"] as? String, "user")
        let slow = try upstream.waitForAllEnded("/delay/5000/\(tag)")
        XCTAssertEqual(slow.count, 1)
        XCTAssertTrue(slow.allSatisfy(\.clientAborted), "the other fetch was not cancelled: \(slow.map(\.raw))")
    }

    func testAnOptionalFetchFailingIsNull() throws {
        let response = try RawHTTP.get(port: port, "/optional/\(Self.adaId)")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual((response.json["user"] as? [String: Any])?["name"] as? String, "Ada Lovelace")
        XCTAssertTrue(response.json.keys.contains("devices") && response.json["devices"] is NSNull, response.text)
    }

    func testTheRouteTimeoutAnswers504AndCancelsItsFetches() throws {
        let tag = tag()
        let started = Date()
        let response = try RawHTTP.get(port: port, "/timeout/\(tag)")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.status, 504, response.text)
        XCTAssertEqual(response.json["code"] as? String, "route-timeout")
        XCTAssertGreaterThanOrEqual(elapsed, 0.29)
        XCTAssertLessThan(elapsed, 1.5)
        let hung = try upstream.waitForAllEnded("/fault/hang/\(tag)")
        XCTAssertEqual(hung.count, 2)
        XCTAssertTrue(hung.allSatisfy(\.clientAborted), "\(hung.map(\.raw))")
    }

    // MARK: - Follow-up fetches

    func testFollowUpsAreDeduplicatedAndBoundedByConcurrency() throws {
        _ = try RawHTTP.get(port: upstream.port, "/_log?clear=1")
        let response = try RawHTTP.get(port: port, "/posts/x")
        XCTAssertEqual(response.status, 200, response.text)
        let posts = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]], response.text)
        XCTAssertEqual(posts.count, 5)
        let authors = posts.map { ($0["author"] as? [String: Any])?["name"] as? String }
        XCTAssertEqual(authors, ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Ada Lovelace", nil], response.text)
        XCTAssertTrue(posts[4]["author"] is NSNull, "a follow-up answered null is missing: null by default")
        let followUps = try upstream.entries("/delay/150/users/")
        XCTAssertEqual(followUps.count, 4, "Ada's record is fetched once: \(followUps.map(\.target))")
        XCTAssertEqual(Set(followUps.map(\.target)).count, 4)
        XCTAssertEqual(maxOverlap(followUps), 2, "concurrency 2: at most two in flight, and two used")
    }

    func testClientLeavingCancelsFollowUpsInFlightAndStartsNoMore() throws {
        let tag = tag()
        let client = try RawHTTP(port: port)
        client.send("GET /posts-leave/\(tag) HTTP/1.1\r\nHost: x\r\n\r\n")
        try upstream.waitForEntries("/fault/hang/\(tag)/", count: 3)
        let left = monotonicNowMilliseconds()
        client.close()
        // Time for a follow-up wrongly started as the others are cancelled to reach the upstream.
        Thread.sleep(forTimeInterval: 0.3)
        let ended = try upstream.waitForAllEnded("/fault/hang/\(tag)/")
        XCTAssertEqual(
            ended.count, 3, "concurrency 3, and nothing started after the client left: \(ended.map(\.target))")
        for entry in ended {
            XCTAssertTrue(entry.clientAborted, "\(entry.target) was not abandoned")
            XCTAssertLessThan((entry.endedMs ?? .max) - left, 1000, "\(entry.target): the close came late")
        }
    }

    // MARK: - Headers

    func testOnlyListedClientHeadersReachTheUpstreamAndNeverHopByHopOnes() throws {
        let tag = tag()
        let response = try RawHTTP.get(
            port: port, "/headers/\(tag)",
            headers: [
                "Authorization: Bearer user-token", "X-Request-Id: req-42", "Cookie: session=1", "X-Unlisted: nope",
                "Proxy-Authorization: Basic cHJveHk=", "TE: trailers", "Keep-Alive: timeout=5", "Upgrade: websocket",
                "Proxy-Connection: keep-alive", "Content-Type: text/plain", "Expect: 100-continue",
            ])
        XCTAssertEqual(response.status, 200, response.text)
        let entry = try XCTUnwrap(try upstream.entries("/echo/\(tag)").first)
        XCTAssertEqual(entry.header("Authorization"), "Bearer user-token")
        XCTAssertEqual(entry.header("X-Request-Id"), "req-42")
        XCTAssertEqual(entry.header("X-Client"), "reshape", "the route's own header")
        XCTAssertEqual(entry.header("X-Operator"), Self.operatorToken, "the upstream's header")
        for name in [
            "Cookie", "X-Unlisted", "Proxy-Authorization", "TE", "Keep-Alive", "Upgrade", "Proxy-Connection",
            "Content-Type", "Expect",
        ] {
            XCTAssertFalse(entry.hasHeader(name), "\(name) reached the upstream: \(entry.headers)")
        }
        XCTAssertEqual(entry.header("Host"), "127.0.0.1:\(upstream.port)", "the client's Host is not passed on")
        XCTAssertEqual(entry.headers.filter { $0.0.lowercased() == "host" }.count, 1)
        XCTAssertNotEqual(entry.header("Connection"), "close", "the client's Connection (close) is its own hop's")
    }

    func testARouteWithoutForwardHeadersSendsNoClientHeader() throws {
        let tag = tag()
        let response = try RawHTTP.get(
            port: port, "/plain/\(tag)", headers: ["Authorization: Bearer user-token", "X-Request-Id: r"])
        XCTAssertEqual(response.status, 200, response.text)
        let entry = try XCTUnwrap(try upstream.entries("/echo/\(tag)").first)
        XCTAssertFalse(entry.hasHeader("Authorization"), "\(entry.headers)")
        XCTAssertFalse(entry.hasHeader("X-Request-Id"), "\(entry.headers)")
    }

    func testForwardedHeadersOfOneRequestNeverRideOnAnother() throws {
        // Alternating users on the same keep-alive upstream connections and cached header lists.
        for round in 0..<6 {
            let tag = tag()
            let token = round % 2 == 0 ? "Bearer alice" : nil
            let response = try RawHTTP.get(
                port: port, "/headers/\(tag)", headers: token.map { ["Authorization: \($0)"] } ?? [])
            XCTAssertEqual(response.status, 200, response.text)
            let entry = try XCTUnwrap(try upstream.entries("/echo/\(tag)").first)
            XCTAssertEqual(entry.header("Authorization"), token, "round \(round): \(entry.headers)")
        }
    }

    // MARK: - Bodies

    func testAWriteSendsOnlyItsOwnContentTypeEvenWhenTheClientsIsListed() throws {
        let tag = tag()
        let response = try RawHTTP.request(
            port: port, "POST", "/form-listing/\(tag)",
            headers: ["Content-Type: application/json", "Expect: 100-continue"], body: #"{"a": 1}"#)
        XCTAssertEqual(response.status, 200, response.text)
        let entry = try XCTUnwrap(try upstream.entries("/echo/\(tag)").first)
        XCTAssertEqual(
            entry.headers.filter { $0.0.lowercased() == "content-type" }.map(\.1), ["application/x-www-form-urlencoded"]
        )
        XCTAssertNil(entry.header("Expect"))
        XCTAssertEqual(entry.body, "a=1")
    }

    func testAWriteForwardsItsBodyAndKeepsTheUpstreams201() throws {
        _ = try RawHTTP.get(port: upstream.port, "/_log?clear=1")
        let response = try RawHTTP.request(
            port: port, "POST", "/users", headers: ["Content-Type: application/json", "Authorization: Bearer u"],
            body: #"{"name": "Ada", "age": 36, "admin": true}"#)
        XCTAssertEqual(response.status, 201, response.text)
        XCTAssertTrue((response.json["name"] as? String ?? "").hasPrefix("-N"), response.text)
        let entry = try XCTUnwrap(try upstream.entries("/users.json").last)
        XCTAssertEqual(entry.method, "POST")
        XCTAssertEqual(entry.body, #"{"name":"Ada","age":36}"#, "checked, transformed (admin dropped), re-encoded")
        XCTAssertEqual(entry.header("Content-Type"), "application/json")
        XCTAssertEqual(entry.header("Content-Length"), String(entry.body.utf8.count))
        XCTAssertNil(entry.header("Expect"))
        XCTAssertNil(entry.header("Transfer-Encoding"))
    }

    /// Trailers of a chunked body are discarded: none becomes a header, so none is forwarded.
    func testTrailersNeverPassForForwardedHeaders() throws {
        var client = try RawHTTP(port: port)
        defer { client.close() }
        let body = #"{"name":"Trailer"}"#
        client.send(
            "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n"
                + "X-One: 1\r\nAuthorization: Bearer smuggled\r\nX-Last: 2\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 201, response.text)
        let entry = try XCTUnwrap(try upstream.entries("/users.json").last { $0.body.contains("Trailer") })
        XCTAssertNil(entry.header("Authorization"), "\(entry.headers)")
        XCTAssertNil(entry.header("X-One"))
        XCTAssertNil(entry.header("X-Last"))
    }

    func testAFormRouteSendsURLEncodedPairs() throws {
        let tag = tag()
        let response = try RawHTTP.request(
            port: port, "POST", "/form/\(tag)", headers: ["Content-Type: application/json; charset=utf-8"],
            body: #"{"name": "Ada Lovelace", "age": 36, "note": "a&b=c"}"#)
        XCTAssertEqual(response.status, 200, response.text)
        let entry = try XCTUnwrap(try upstream.entries("/echo/\(tag)").first)
        XCTAssertEqual(entry.header("Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(entry.body, "name=Ada%20Lovelace&age=36&note=a%26b%3Dc")
        XCTAssertEqual(entry.header("Content-Length"), String(entry.body.utf8.count))
    }

    func testBadClientBodiesAreRefusedWithoutCallingTheUpstream() throws {
        _ = try RawHTTP.get(port: upstream.port, "/_log?clear=1")
        let wrongType = try RawHTTP.request(
            port: port, "POST", "/users", headers: ["Content-Type: text/plain"], body: "name=Ada")
        XCTAssertEqual(wrongType.status, 415, wrongType.text)
        let invalid = try RawHTTP.request(
            port: port, "POST", "/users", headers: ["Content-Type: application/json"], body: "{\n  \"name\": ,\n}")
        XCTAssertEqual(invalid.status, 400, invalid.text)
        XCTAssertEqual(invalid.json["line"] as? Int, 2, invalid.text)
        XCTAssertNotNil(invalid.json["column"] as? Int)
        let violations = try RawHTTP.request(
            port: port, "POST", "/users", headers: ["Content-Type: application/json"],
            body: #"{"name": "", "age": -1}"#)
        XCTAssertEqual(violations.status, 422, violations.text)
        let pointers = (violations.json["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
        XCTAssertEqual(Set(pointers), ["/name", "/age"], violations.text)
        let unexpected = try RawHTTP.request(port: port, "GET", "/plain/x", body: "{}")
        XCTAssertEqual(unexpected.status, 415, unexpected.text)
        for response in [wrongType, invalid, violations, unexpected] {
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        }
        XCTAssertEqual(
            try upstream.entries("/users.json").count + upstream.entries("/echo/x").count, 0, "the upstream was called")
    }

    func testExpectContinueIsAnsweredBeforeTheBodyIsSent() throws {
        var client = try RawHTTP(port: port, timeout: 2)
        defer { client.close() }
        let body = #"{"name": "Grace"}"#
        client.send(
            "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n"
        )
        let interim = try XCTUnwrap(client.readResponse(headOnly: true), "no 100 Continue")
        XCTAssertEqual(interim.status, 100)
        client.send(body)
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 201, response.text)
    }

    func testABodyThatArrivesTooSlowlyGets408() throws {
        var client = try RawHTTP(port: port, timeout: 3)
        defer { client.close() }
        let started = Date()
        client.send(
            "POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"na")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 408, response.text)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    // MARK: - Upstream verdicts

    func testUpstreamVerdictsReachTheClientOnRoutesThatForwardTheirCredentials() throws {
        let unauthorized = try RawHTTP.get(port: port, "/verdict/401", headers: ["Authorization: Bearer expired"])
        XCTAssertEqual(unauthorized.status, 401, unauthorized.text)
        XCTAssertEqual(unauthorized.json["code"] as? String, "upstream-rejected")
        XCTAssertNil(unauthorized.json["upstream-error"], "upstream bodies are not echoed by default")
        let limited = try RawHTTP.get(port: port, "/verdict/429", headers: ["Authorization: Bearer busy"])
        XCTAssertEqual(limited.status, 429, limited.text)
        XCTAssertEqual(limited.json["code"] as? String, "upstream-rejected")
        XCTAssertEqual(limited.header("Retry-After"), "7")
        XCTAssertEqual(try RawHTTP.get(port: port, "/verdict/404").status, 404)
        XCTAssertEqual(try RawHTTP.get(port: port, "/verdict/500").status, 502)
    }

    func testOnAPlainRouteUpstreamVerdictsStay502() throws {
        for status in [401, 429] {
            let response = try RawHTTP.get(port: port, "/plain-verdict/\(status)")
            XCTAssertEqual(response.status, 502, response.text)
            XCTAssertEqual(response.json["code"] as? String, "upstream-status")
            XCTAssertNil(response.header("Retry-After"))
        }
    }
}
