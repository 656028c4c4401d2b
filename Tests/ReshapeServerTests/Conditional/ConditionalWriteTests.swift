import Foundation
import ReshapeTestSupport
import XCTest

/// Conditional reads and writes end to end (issue 28): `reshape serve` in front of the demo
/// upstream, which keeps Firebase's ETag and `if-match` as Firebase does. A GET on a
/// `conditional: true` route carries a tag with Firebase's ETag in it; a PUT with that tag in
/// `If-Match` is applied once, and the same tag, stale after the write, is answered 412 with
/// the current tag, which applies in turn.
final class ConditionalWriteTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var server: ReshapeServer!

    private func rules(putTransform: String = "[]") -> String {
        """
        upstreams:
          firebase: { url: "http://127.0.0.1:\(upstream.port)", timeout: 3s }
        routes:
          - { name: counter, request: "GET /counters/{id}", upstream: firebase, path: "/counters/{id}.json", conditional: true, transform: [] }
          - { name: counter-put, request: "PUT /counters/{id}", upstream: firebase, path: "/counters/{id}.json", conditional: true, body: {}, transform: \(putTransform) }
          - { name: counter-delete, request: "DELETE /counters/{id}", upstream: firebase, path: "/counters/{id}.json", conditional: true, transform: [] }
          - { name: tally, request: "GET /tallies/{id}", upstream: firebase, path: "/counters/{id}.json", conditional: true, transform: [] }
          - { name: plain-put, request: "PUT /plain/{id}", upstream: firebase, path: "/counters/{id}.json", body: {}, transform: [] }
          - { name: unrelated, request: "GET /unrelated", upstream: firebase, path: "/users.json", transform: [] }
        """
    }

    override func setUpWithError() throws {
        upstream = try DemoUpstream()
        server = try ReshapeServer(rules: rules(), arguments: ["--workers", "1", "--watch-debounce", "200"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    private func put(_ target: String, _ body: String, headers: [String] = []) throws -> RawHTTP.Response {
        try RawHTTP.request(
            port: server.port, "PUT", target, headers: ["Content-Type: application/json"] + headers, body: body)
    }

    private func tag(_ target: String) throws -> String {
        let read = try RawHTTP.get(port: server.port, target)
        XCTAssertEqual(read.status, 200, read.text)
        return try XCTUnwrap(read.header("ETag"))
    }

    func testAStaleIfMatchIsAnswered412AndTheRightOneApplied() throws {
        XCTAssertEqual(try put("/plain/a", "10").status, 200)
        let first = try tag("/counters/a")
        XCTAssertTrue(first.hasPrefix("\"") && first.split(separator: ".").count == 3, first)
        let fetched = try XCTUnwrap(try upstream.entries("/counters/a.json").last)
        XCTAssertEqual(fetched.header("X-Firebase-ETag"), "true", "the read asks Firebase for its ETag")

        let applied = try put("/counters/a", "11", headers: ["If-Match: \(first)"])
        XCTAssertEqual(applied.status, 200, applied.text)
        XCTAssertEqual(applied.text, "11")
        let sent = try XCTUnwrap(try upstream.entries("/counters/a.json").last)
        XCTAssertEqual(sent.method, "PUT")
        XCTAssertNotNil(sent.header("if-match"), "Firebase's part of the tag is sent as if-match")
        XCTAssertFalse(sent.header("if-match")?.contains(".") ?? true, "only Firebase's part")
        let chained = try XCTUnwrap(applied.header("ETag"), "the write's answer carries the new value's tag")

        let stale = try put("/counters/a", "12", headers: ["If-Match: \(first)"])
        XCTAssertEqual(stale.status, 412, stale.text)
        XCTAssertEqual(stale.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(stale.json["code"] as? String, "precondition-failed")
        XCTAssertNil(stale.json["upstream-error"], "the upstream's current value is not shown")
        let current = try XCTUnwrap(stale.header("ETag"))
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/counters/a").text, "11", "the stale write was not applied")

        let retried = try put("/counters/a", "12", headers: ["If-Match: \(current)"])
        XCTAssertEqual(retried.status, 200, retried.text)
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/counters/a").text, "12")
        XCTAssertEqual(try put("/counters/a", "13", headers: ["If-Match: \(chained)"]).status, 412)
    }

    func testATagOfAnotherResourceOrRouteIsRefusedWithoutWriting() throws {
        XCTAssertEqual(try put("/plain/a", "1").status, 200)
        XCTAssertEqual(try put("/plain/b", "1").status, 200)
        let ofA = try tag("/counters/a")
        let ofTally = try tag("/tallies/b")
        let writesBefore = try upstream.entries("/counters/").filter { $0.method == "PUT" }.count
        for (target, ifMatch) in [
            ("/counters/b", ofA), ("/counters/b", ofTally), ("/counters/b", "W/" + ofA),
            ("/counters/b", "\"not-ours\""), ("/counters/b", "garbage"),
        ] {
            let refused = try put(target, "2", headers: ["If-Match: \(ifMatch)"])
            XCTAssertEqual(refused.status, 412, "\(ifMatch): \(refused.text)")
            XCTAssertEqual(refused.json["code"] as? String, "precondition-failed")
            XCTAssertNotNil(refused.header("ETag"), "the current tag comes with the refusal")
        }
        XCTAssertEqual(
            try upstream.entries("/counters/").filter { $0.method == "PUT" }.count, writesBefore, "nothing was written")
        let ofB = try tag("/counters/b")
        let listed = try put("/counters/b", "3", headers: ["If-Match: \"x\", \(ofA), \(ofB)"])
        XCTAssertEqual(listed.status, 200, "a list applies when one member is this resource's tag: \(listed.text)")
    }

    func testNoIfMatchWritesAsTodayAndStarIsPassedOn() throws {
        XCTAssertEqual(try put("/counters/c", "1").status, 200)
        XCTAssertNil(try XCTUnwrap(try upstream.entries("/counters/c.json").last).header("if-match"))
        XCTAssertEqual(try put("/counters/c", "2", headers: ["If-Match: *"]).status, 200)
        XCTAssertEqual(try XCTUnwrap(try upstream.entries("/counters/c.json").last).header("if-match"), "*")
    }

    func testPreferReturnMinimalAnswers204() throws {
        let minimal = try put("/counters/d", "5", headers: ["Prefer: return=minimal"])
        XCTAssertEqual(minimal.status, 204, minimal.text)
        XCTAssertEqual(minimal.header("Preference-Applied"), "return=minimal")
        XCTAssertTrue(minimal.body.isEmpty)
        XCTAssertTrue(try XCTUnwrap(try upstream.entries("/counters/d.json").last).target.hasSuffix("print=silent"))
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/counters/d").text, "5")
    }

    func testDeleteWithAStaleTagIsRefused() throws {
        XCTAssertEqual(try put("/plain/e", "1").status, 200)
        let old = try tag("/counters/e")
        XCTAssertEqual(try put("/plain/e", "2").status, 200)
        let refused = try RawHTTP.request(port: server.port, "DELETE", "/counters/e", headers: ["If-Match: \(old)"])
        XCTAssertEqual(refused.status, 412, refused.text)
        let fresh = try XCTUnwrap(refused.header("ETag"))
        let deleted = try RawHTTP.request(port: server.port, "DELETE", "/counters/e", headers: ["If-Match: \(fresh)"])
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertEqual(try RawHTTP.get(port: server.port, "/counters/e").text, "null")
    }

    func testTagsSurviveUnrelatedReloadsButNotAChangeOfTheRoutesRules() throws {
        XCTAssertEqual(try put("/plain/f", "1").status, 200)
        let before = try tag("/counters/f")
        try server.replaceRules(
            rules()
                + "\n  - { name: extra, request: \"GET /extra\", upstream: firebase, path: /x.json, transform: [] }\n")
        try server.child.waitFor(5, "the first reload") { $0.stderr.contains("\"rules reloaded\"") }
        XCTAssertEqual(try put("/counters/f", "2", headers: ["If-Match: \(before)"]).status, 200)

        let current = try tag("/counters/f")
        try server.replaceRules(rules(putTransform: "[ { wrap: value } ]"))
        try server.child.waitFor(5, "the second reload") {
            $0.stderr.components(separatedBy: "\"rules reloaded\"").count - 1 >= 2
        }
        let refused = try put("/counters/f", "3", headers: ["If-Match: \(current)"])
        XCTAssertEqual(refused.status, 412, "the write route's rules changed since the tag: \(refused.text)")
        XCTAssertEqual(try put("/counters/f", "3", headers: ["If-Match: \(try tag("/counters/f"))"]).status, 200)
    }

    func testTheTagStillRevalidatesPerCodingAndEachCodingsTagIsAccepted() throws {
        let big = "{\"text\": \"" + String(repeating: "abcdefgh", count: 512) + "\"}"
        XCTAssertEqual(try put("/plain/g", big).status, 200)
        let gzip = try RawHTTP.get(port: server.port, "/counters/g", headers: ["Accept-Encoding: gzip"])
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        let gzipTag = try XCTUnwrap(gzip.header("ETag"))
        XCTAssertTrue(gzipTag.hasSuffix("-gzip\""), gzipTag)
        let again = try RawHTTP.get(
            port: server.port, "/counters/g", headers: ["Accept-Encoding: gzip", "If-None-Match: \(gzipTag)"])
        XCTAssertEqual(again.status, 304)
        let identity = try RawHTTP.get(port: server.port, "/counters/g", headers: ["If-None-Match: \(gzipTag)"])
        XCTAssertEqual(identity.status, 200, "another coding is another representation")
        XCTAssertEqual(try put("/counters/g", "1", headers: ["If-Match: \(gzipTag)"]).status, 200)
    }
}
