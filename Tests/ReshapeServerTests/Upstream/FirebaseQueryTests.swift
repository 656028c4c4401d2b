import Foundation
import ReshapeTestSupport
import XCTest

/// Firebase's queries end to end (issue 28): `reshape serve` in front of the demo upstream,
/// which filters and cuts as Firebase does and, as Firebase does, answers the matches as an
/// object in an order that is not the sorted one (the reverse). A route with
/// `firebase-query: true` checks and forwards the query; `keyed-to-array`'s `order: query`
/// puts the records in the order Firebase's SDK would.
final class FirebaseQueryTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var server: ReshapeServer!

    // The demo's users by age: Benjamin -3, (empty name) 30, Ada 36, Alan 41, (no name) 50,
    // Grace 85, and Linus "42", a string, so after every number.
    private let ben = "-NqK3dC3e6FgH7iJ8kL9"
    private let empty = "-NqK3bA1c4DeF5gH6iJ7"
    private let ada = "-NqK3a9Xb2mLp0Rt7Yv1"
    private let alan = "-NqK3fE5g8HiJ9kL0mN1"
    private let anon = "-NqK3eD4f7GhI8jK9lM0"
    private let grace = "-NqK3a9Xb2mLp0Rt7Yv2"
    private let linus = "-NqK3cB2d5EfG6hI7jK8"

    override func setUpWithError() throws {
        upstream = try DemoUpstream()
        server = try ReshapeServer(
            rules: """
                upstreams:
                  firebase: { url: "http://127.0.0.1:\(upstream.port)", timeout: 3s }
                routes:
                  - name: users
                    request: GET /users
                    upstream: firebase
                    path: /users.json
                    firebase-query: true
                    cache: { ttl: 30s, upstream-cache-control: ignore }
                    transform:
                      - keyed-to-array: { key: objectId, order: query }
                      - wrap: objects
                  - name: users-built
                    request: GET /users-built
                    upstream: firebase
                    path: /users.json
                    firebase-query: true
                    transform:
                      - keyed-to-array: { key: objectId, order: query }
                      - keep: [objectId, age]
                  - name: raw
                    request: GET /raw
                    upstream: firebase
                    path: /users.json
                    firebase-query: true
                    transform: []
                """, arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    private func ids(_ target: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let response = try RawHTTP.get(port: server.port, target)
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        let object = try JSONSerialization.jsonObject(with: Data(response.body))
        let records = (object as? [String: Any])?["objects"] as? [[String: Any]] ?? object as? [[String: Any]] ?? []
        return records.map { $0["objectId"] as? String ?? "?" }
    }

    /// Member names of an object answer, in the order they were written.
    private func memberOrder(_ text: String) -> [String] {
        text.components(separatedBy: "\"-NqK").dropFirst().map { "-NqK" + $0.prefix(16) }
    }

    func testOrderByAgeLimitToFirstIsAnsweredSortedAndCut() throws {
        let query = "orderBy=%22age%22&limitToFirst=2"
        let direct = try RawHTTP.get(port: upstream.port, "/users.json?" + query)
        XCTAssertEqual(memberOrder(direct.text), [empty, ben], "the upstream answers its matches unsorted")
        XCTAssertEqual(try ids("/users?" + query), [ben, empty])
        XCTAssertEqual(try ids("/users-built?" + query), [ben, empty], "the tree path gives the same order")
        let sent = try XCTUnwrap(try upstream.entries("/users.json?").last)
        XCTAssertEqual(sent.target, "/users.json?orderBy=%22age%22&limitToFirst=2")
    }

    func testMixedTypesLimitToLastAndRangesFollowFirebasesOrder() throws {
        XCTAssertEqual(try ids("/users?orderBy=%22age%22&limitToLast=3"), [anon, grace, linus])
        XCTAssertEqual(try ids("/users?orderBy=%22age%22&startAt=36&endAt=50"), [ada, alan, anon])
        XCTAssertEqual(try ids("/users?orderBy=%22age%22&equalTo=%2242%22"), [linus])
        XCTAssertEqual(try ids("/users?orderBy=%22$key%22&limitToFirst=3"), [ada, grace, empty])
        XCTAssertEqual(try ids("/users?orderBy=%22address/city%22&limitToFirst=3"), [grace, ada, alan])
        // Without a query the SDK orders by key.
        XCTAssertEqual(try ids("/users"), [ada, grace, empty, linus, ben, anon, alan])
    }

    func testEachQueryIsItsOwnCachedAnswer() throws {
        let first = try RawHTTP.get(port: server.port, "/users?orderBy=%22age%22&limitToFirst=1")
        let last = try RawHTTP.get(port: server.port, "/users?limitToLast=1&orderBy=%22age%22")
        XCTAssertEqual(first.header("Reshape-Cache"), "miss")
        XCTAssertEqual(last.header("Reshape-Cache"), "miss")
        XCTAssertNotEqual(first.text, last.text)
        let again = try RawHTTP.get(port: server.port, "/users?limitToFirst=1&orderBy=%22age%22&other=x")
        XCTAssertEqual(
            again.header("Reshape-Cache"), "hit", "the same query in another order, other parameters ignored")
        XCTAssertEqual(again.text, first.text)
    }

    func testAQueryFirebaseWouldRefuseIsRefusedBeforeItIsFetched() throws {
        for (query, parameter) in [
            ("orderBy=age", "orderBy"), ("orderBy=%22age%22&limitToFirst=0", "limitToFirst"),
            ("orderBy=%22age%22&limitToFirst=1&limitToLast=1", "limitToLast"), ("limitToFirst=2", "orderBy"),
            ("shallow=true&orderBy=%22age%22", "shallow"), ("orderBy=%22age%22&startAt=%7B%7D", "startAt"),
            ("orderBy=%22$priority%22", "orderBy"),
        ] {
            let response = try RawHTTP.get(port: server.port, "/users?" + query)
            XCTAssertEqual(response.status, 400, query + ": " + response.text)
            XCTAssertEqual(response.json["code"] as? String, "bad-parameter", query)
            XCTAssertEqual(response.json["title"] as? String, "Bad parameter", query)
            XCTAssertEqual(response.json["parameter"] as? String, parameter, query)
        }
        XCTAssertEqual(try upstream.entries("/users.json").count, 0, "nothing was fetched")
    }

    func testARouteThatDoesNotOrderForwardsPriorityAndShallow() throws {
        let priority = try RawHTTP.get(port: server.port, "/raw?orderBy=%22$priority%22&limitToFirst=2")
        XCTAssertEqual(priority.status, 200, priority.text)
        let shallow = try RawHTTP.get(port: server.port, "/raw?shallow=true")
        XCTAssertEqual(shallow.status, 200, shallow.text)
        XCTAssertEqual(shallow.json[ada] as? Bool, true)
        XCTAssertEqual(
            try upstream.entries("/users.json").map(\.target),
            ["/users.json?orderBy=%22%24priority%22&limitToFirst=2", "/users.json?shallow=true"])
    }

    func testTheDemoUpstreamRefusesAsFirebaseDoes() throws {
        let response = try RawHTTP.get(port: upstream.port, "/users.json?orderBy=age")
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.json["error"] as? String, "orderBy must be a valid JSON encoded path")
        let both = try RawHTTP.get(port: upstream.port, "/users.json?orderBy=%22age%22&limitToFirst=1&limitToLast=1")
        XCTAssertEqual(both.status, 400)
    }
}
