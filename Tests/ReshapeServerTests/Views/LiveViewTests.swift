import Foundation
import ReshapeJSON
import ReshapeLive
import ReshapeTestSupport
import XCTest

/// Client views of live streams (issue 26): a subscriber's snapshot is its view, and each
/// patch turns its previous view into the new one.
final class LiveViewTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var server: ReshapeServer!

    override func setUpWithError() throws {
        upstream = try DemoUpstream(arguments: ["--keep-alive", "0.5"])
        func route(_ name: String, live: Bool) -> String {
            """
              - name: \(name)
                request: GET /\(name)
                upstream: demo
                path: /users.json
                live: \(live)
                transform:
                  - keyed-to-array: { key: objectId, order: key }
                  - validate: { type: Person, invalid: drop }
                  - wrap: objects
                client-query: { array: /objects, fields: true, filter: [name, age], sort: [age] }
            """
        }
        server = try ReshapeServer(
            rules: """
                upstreams:
                  demo: { url: "http://127.0.0.1:\(upstream.port)", timeout: 3s }
                types:
                  Person:
                    type: object
                    required: [objectId]
                    properties:
                      objectId: { type: string }
                      name: { type: string }
                      age: { type: integer }
                      email: { type: string }
                routes:
                \(route("people", live: true))
                \(route("people-fetched", live: false))
                """, arguments: ["--workers", "1"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    func testAFilteredSubscriptionGetsAddAndRemoveAndMatchesAPlainGet() throws {
        let query = "?age[gte]=40&fields=name,age"
        let client = try EventStreamClient(port: server.port, "/people" + query)
        defer { client.close() }
        try client.readHead()
        XCTAssertEqual(client.status, 200)
        var document = try JSON.parse(Array(try client.expect("snapshot").data.utf8))
        XCTAssertEqual(String(decoding: document.serialized(), as: UTF8.self), try plainGet("/people-fetched" + query))
        // Another view of the same route shares the one upstream stream.
        let other = try EventStreamClient(port: server.port, "/people?sort=age")
        defer { other.close() }
        try other.readHead()
        _ = try other.expect("snapshot")

        let ada = try key(of: "Ada Lovelace")
        var id = 1
        func next(_ op: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let event = try client.expect("patch")
            id += 1
            XCTAssertEqual(event.id, String(id), "one event per change of the view", file: file, line: line)
            XCTAssertTrue(event.data.contains(#""op":"\#(op)""#), event.data, file: file, line: line)
            document = try patch(from: event.data).applied(to: document)
            XCTAssertEqual(
                String(decoding: document.serialized(), as: UTF8.self), try plainGet("/people-fetched" + query),
                file: file, line: line)
        }
        try write("PATCH", "/users/\(ada).json", #"{"age":45}"#)
        try next("add")
        try write("PATCH", "/users/\(ada).json", #"{"email":"ada@new.example"}"#)  // not in the view
        try write("PATCH", "/users/\(ada).json", #"{"age":30}"#)
        try next("remove")
        let stats = try RawHTTP.get(port: upstream.port, "/_demo/streams").json
        XCTAssertEqual(stats["opened"] as? Int, 1, "subscribers with different views share one upstream stream")
    }

    func testLimitAndCursorAreRefusedOnASubscription() throws {
        for query in ["?limit=2", "?fields=name&cursor=abc"] {
            var client = try RawHTTP(port: server.port)
            defer { client.close() }
            client.send(
                "GET /people\(query) HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n")
            let response = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(response.status, 400, query)
            XCTAssertEqual(response.json["code"] as? String, "bad-parameter", query)
        }
    }

    // MARK: - Helpers

    func plainGet(_ target: String) throws -> String {
        let response = try RawHTTP.get(port: server.port, target)
        guard response.status == 200 else { throw HarnessError("GET \(target): \(response.status) \(response.text)") }
        return response.text
    }

    func key(of name: String) throws -> String {
        let records = try RawHTTP.get(port: server.port, "/people-fetched").json["objects"] as? [[String: Any]] ?? []
        guard let key = records.first(where: { $0["name"] as? String == name })?["objectId"] as? String else {
            throw HarnessError("no \(name)")
        }
        return key
    }

    func write(_ method: String, _ target: String, _ body: String) throws {
        var client = try RawHTTP(port: upstream.port)
        defer { client.close() }
        let bytes = Array(body.utf8)
        client.send(
            "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
        client.send(bytes)
        guard let response = client.readResponse(), response.status < 300 else {
            throw HarnessError("\(method) \(target) failed")
        }
    }
}
