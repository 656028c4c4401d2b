import Foundation
import ReshapeTestSupport
import XCTest

/// `client-query:` end to end (issue 26, docs/queries.md): views of the demo's users made by
/// `reshape serve` from the route's whole answer.
final class ClientViewTests: XCTestCase {
    private var upstream: DemoUpstream!
    private var server: ReshapeServer!

    static func rules(port: Int) -> String {
        let clientQuery = """
            client-query:
                  array: /objects
                  fields: true
                  filter: [name, age, score, active, email, address.city, rank]
                  sort: [name, age, rank, address.city]
                  page: { size: 50, max: 100 }
            """
        return """
            upstreams:
              demo: { url: "http://127.0.0.1:\(port)", timeout: 3s }
            types:
              Person:
                type: object
                required: [objectId]
                properties:
                  objectId: { type: string }
                  name: { type: string }
                  age: { type: integer }
                  score: { type: number }
                  active: { type: boolean }
                  email: { type: string }
                  rank: {}
                  address:
                    type: object
                    properties: { city: { type: string }, zip: { type: string } }
            routes:
              - name: people
                request: GET /people
                upstream: demo
                path: /users.json
                transform:
                  - keyed-to-array: { key: objectId, order: key }
                  - validate: { type: Person, invalid: drop }
                  - wrap: objects
                \(clientQuery)
              - name: cached-people
                request: GET /cached-people
                upstream: demo
                path: /users.json
                cache: { ttl: 30s, upstream-cache-control: ignore }
                transform:
                  - keyed-to-array: { key: objectId, order: key }
                  - validate: { type: Person, invalid: drop }
                  - wrap: objects
                \(clientQuery)
            """
    }

    override func setUpWithError() throws {
        upstream = try DemoUpstream()
        server = try ReshapeServer(
            rules: Self.rules(port: upstream.port), arguments: ["--workers", "1", "--compress-min-bytes", "0"])
    }

    override func tearDown() {
        server?.stop()
        upstream?.child.stop()
    }

    // MARK: - Helpers

    /// The records of a 200 view of `target`.
    func records(_ target: String, headers: [String] = []) throws -> [[String: Any]] {
        let response = try RawHTTP.get(port: server.port, target, headers: headers)
        guard response.status == 200 else { throw HarnessError("GET \(target): \(response.status) \(response.text)") }
        return response.json["objects"] as? [[String: Any]] ?? []
    }

    func ids(_ target: String) throws -> [String] { try records(target).map { $0["objectId"] as? String ?? "?" } }

    /// The ids of the full answer's records for which `test` holds, in the answer's order.
    func expected(_ test: ([String: Any]) -> Bool) throws -> [String] {
        try records("/people").filter(test).map { $0["objectId"] as? String ?? "?" }
    }

    @discardableResult
    func write(_ method: String, _ target: String, _ body: String?) throws -> String {
        var client = try RawHTTP(port: upstream.port)
        defer { client.close() }
        let bytes = Array((body ?? "").utf8)
        client.send(
            "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
        client.send(bytes)
        guard let response = client.readResponse() else { throw HarnessError("no answer to \(method) \(target)") }
        guard response.status < 300 else { throw HarnessError("\(method) \(target): \(response.status)") }
        return response.text
    }

    /// Gives the users booleans, fractions and a `rank` of every JSON type.
    func enrich() throws -> [String] {
        let keys = try records("/people").compactMap { $0["objectId"] as? String }
        let ranks = ["null", "false", "true", "3", "\"x\"", "{\"a\":1}"]
        for (index, key) in keys.enumerated() {
            let rank = index < ranks.count ? #","rank":\#(ranks[index])"# : ""
            try write(
                "PATCH", "/users/\(key).json", #"{"active":\#(index % 2 == 0),"score":\#(Double(index) + 0.5)\#(rank)}"#
            )
        }
        return keys
    }

    func problem(_ target: String) throws -> (status: Int, code: String, detail: String) {
        let response = try RawHTTP.get(port: server.port, target)
        let json = response.json
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json", target)
        return (response.status, json["code"] as? String ?? "", json["detail"] as? String ?? "")
    }

    // MARK: - Fields

    func testFieldsKeepNestedPathsInRecordOrderAndAlwaysTheKey() throws {
        let response = try RawHTTP.get(port: server.port, "/people?fields=address.city,name")
        XCTAssertEqual(response.status, 200, response.text)
        let objects = try XCTUnwrap(response.json["objects"] as? [[String: Any]])
        XCTAssertFalse(objects.isEmpty)
        for record in objects {
            XCTAssertNotNil(record["objectId"], "the key is always kept")
            XCTAssertNil(record["age"])
            XCTAssertNil(record["email"])
            XCTAssertEqual((record["address"] as? [String: Any]).map { Array($0.keys) }, ["city"])
        }
        // Members keep the record's order, not the query's.
        XCTAssertTrue(response.text.contains(#""objectId":"#))
        let first = response.text.range(of: #""name""#)!.lowerBound
        let address = response.text.range(of: #""address""#)!.lowerBound
        XCTAssertLessThan(first, address)
        XCTAssertEqual(response.header("Reshape-Total-Count"), String(objects.count))
    }

    // MARK: - Filters

    func testEachOperatorOnEachType() throws {
        _ = try enrich()
        func check(_ query: String, _ test: ([String: Any]) -> Bool, file: StaticString = #filePath, line: UInt = #line)
            throws
        {
            XCTAssertEqual(try ids("/people?" + query), try expected(test), query, file: file, line: line)
        }
        func age(_ r: [String: Any]) -> Int? { r["age"] as? Int }
        func name(_ r: [String: Any]) -> String? { r["name"] as? String }
        func score(_ r: [String: Any]) -> Double? { r["score"] as? Double }
        // integers
        try check("age=36") { age($0) == 36 }
        try check("age[gte]=36&age[lt]=85") { (age($0) ?? -99) >= 36 && (age($0) ?? 999) < 85 }
        try check("age[gt]=36") { (age($0) ?? -99) > 36 }
        try check("age[lte]=36") { (age($0) ?? 999) <= 36 }
        try check("age[ne]=36") { age($0) != 36 }
        try check("age[in]=36,41,7") { [36, 41, 7].contains(age($0) ?? -1) }
        try check("age[exists]=true") { age($0) != nil }
        // fractions
        try check("score[gt]=1.5") { (score($0) ?? -1) > 1.5 }
        try check("score=2.5") { score($0) == 2.5 }
        // strings, by bytes
        try check("name=Ada%20Lovelace") { name($0) == "Ada Lovelace" }
        try check("name[prefix]=A") { name($0)?.hasPrefix("A") == true }
        try check("name[gte]=B&name[lt]=H") { (name($0) ?? "") >= "B" && (name($0) ?? "~") < "H" }
        try check("name[in]=Alan%20Turing,Grace%20Hopper") { ["Alan Turing", "Grace Hopper"].contains(name($0) ?? "") }
        try check("name[ne]=Alan%20Turing") { name($0) != "Alan Turing" }
        try check("name[exists]=false") { name($0) == nil }
        // booleans
        try check("active=true") { $0["active"] as? Bool == true }
        try check("active[ne]=true") { $0["active"] as? Bool != true }
        // nested paths
        try check("address.city=London") { ($0["address"] as? [String: Any])?["city"] as? String == "London" }
        try check("address.city[prefix]=P") {
            (($0["address"] as? [String: Any])?["city"] as? String)?.hasPrefix("P") == true
        }
        // null and mixed kinds (`rank` declares no type)
        try check("rank=null") { $0["rank"] == nil || $0["rank"] is NSNull }
        try check("rank=3") { !($0["rank"] is Bool) && ($0["rank"] as? Int) == 3 }
        try check("rank=x") { $0["rank"] as? String == "x" }
        // several filters are ANDed
        try check("active=true&age[gte]=40") { $0["active"] as? Bool == true && (age($0) ?? 0) >= 40 }
    }

    // MARK: - Sort

    func testSortIsStableWithFirebasesMixedTypeOrder() throws {
        let keys = try enrich()
        // rank: keys[0] null, [1] false, [2] true, [3] 3, [4] "x", [5] {...}; the rest missing.
        let missing = Array(keys.dropFirst(6))
        XCTAssertEqual(try ids("/people?sort=rank"), [keys[0]] + missing + Array(keys[1...5]))
        XCTAssertEqual(try ids("/people?sort=-rank"), Array(keys[1...5].reversed()) + [keys[0]] + missing)
        let people = try records("/people?sort=-age,name")
        let ages = people.map { $0["age"] as? Int ?? Int.min }
        XCTAssertEqual(ages, ages.sorted(by: >))
    }

    // MARK: - Pages

    func testWalkingTheLinksGivesEveryMatchingRecordOnce() throws {
        let all = try ids("/people?sort=name")
        var seen: [String] = []
        var target: String? = "/people?sort=name&limit=2&fields=name"
        var pages = 0
        while let next = target {
            let response = try RawHTTP.get(port: server.port, next)
            XCTAssertEqual(response.status, 200, response.text)
            XCTAssertEqual(response.header("Reshape-Total-Count"), String(all.count))
            let page = (response.json["objects"] as? [[String: Any]] ?? []).map { $0["objectId"] as? String ?? "?" }
            XCTAssertLessThanOrEqual(page.count, 2)
            seen += page
            target = try Self.nextLink(response.header("Link"))
            pages += 1
            XCTAssertLessThan(pages, 10)
        }
        XCTAssertEqual(seen, all)
    }

    func testARecordAddedBeforeTheCursorDoesNotShiftTheNextPage() throws {
        let all = try ids("/people")
        let first = try RawHTTP.get(port: server.port, "/people?limit=3")
        XCTAssertEqual(first.status, 200, first.text)
        var seen = (first.json["objects"] as? [[String: Any]] ?? []).map { $0["objectId"] as? String ?? "?" }
        // A key that sorts before every push id: before the cursor.
        try write("PUT", "/users/-0000000000000000001.json", #"{"name":"Early Bird","age":20}"#)
        XCTAssertEqual(try ids("/people").first, "-0000000000000000001")
        var target = try Self.nextLink(first.header("Link"))
        while let next = target {
            let response = try RawHTTP.get(port: server.port, next)
            XCTAssertEqual(response.status, 200, response.text)
            seen += (response.json["objects"] as? [[String: Any]] ?? []).map { $0["objectId"] as? String ?? "?" }
            target = try Self.nextLink(response.header("Link"))
        }
        XCTAssertEqual(seen, all, "every record once; the new one came before the cursor")
    }

    func testLimitIsCheckedAndTheDefaultPageIsTheRulesSize() throws {
        XCTAssertEqual(try problem("/people?limit=0").code, "bad-parameter")
        XCTAssertEqual(try problem("/people?limit=101").code, "bad-parameter")
        let response = try RawHTTP.get(port: server.port, "/people?limit=100")
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.header("Link"), "no next page when all fit")
    }

    // MARK: - Refusals

    func testBadFieldOperatorTypeAndCursorAre400Problems() throws {
        let field = try problem("/people?fields=name,password")
        XCTAssertEqual(field.status, 400)
        XCTAssertEqual(field.code, "bad-parameter")
        XCTAssertTrue(field.detail.contains("address.city"), "lists the allowed names: \(field.detail)")
        XCTAssertEqual(try problem("/people?age[near]=3").code, "bad-parameter")
        let unlisted = try problem("/people?zip[gt]=3")
        XCTAssertEqual(unlisted.code, "bad-parameter", "an operator on a field not listed is a filter, refused")
        XCTAssertTrue(unlisted.detail.contains("not a filter field"), unlisted.detail)
        XCTAssertEqual(try problem("/people?age=old").code, "bad-parameter")
        XCTAssertEqual(try problem("/people?age=1.5").code, "bad-parameter")
        XCTAssertEqual(try problem("/people?age[prefix]=1").code, "bad-parameter")
        XCTAssertEqual(try problem("/people?active=yes").code, "bad-parameter")
        XCTAssertEqual(try problem("/people?sort=email").code, "bad-parameter")
        XCTAssertEqual(try problem("/people?cursor=garbage").code, "bad-cursor")

        let first = try RawHTTP.get(port: server.port, "/people?sort=name&limit=2")
        let link = try XCTUnwrap(try Self.nextLink(first.header("Link")))
        let cursor = try XCTUnwrap(link.components(separatedBy: "cursor=").last)
        var tampered = Array(cursor)
        tampered[2] = tampered[2] == "A" ? "B" : "A"
        XCTAssertEqual(try problem("/people?sort=name&limit=2&cursor=\(String(tampered))").code, "bad-cursor")
        XCTAssertEqual(try problem("/people?sort=-name&limit=2&cursor=\(cursor)").code, "bad-cursor", "other sort")
        XCTAssertEqual(try problem("/people?sort=name&age[gt]=1&cursor=\(cursor)").code, "bad-cursor", "other filters")
        XCTAssertEqual(try RawHTTP.get(port: server.port, link).status, 200)
        XCTAssertEqual(try upstream.entries("/users.json?").count, 0, "the client query never reaches the upstream")
    }

    func testATamperedCursorIsRefusedBeforeAnyUpstreamRequest() throws {
        let first = try RawHTTP.get(port: server.port, "/people?sort=name&limit=2")
        let link = try XCTUnwrap(try Self.nextLink(first.header("Link")))
        let cursor = try XCTUnwrap(link.components(separatedBy: "cursor=").last)
        var tampered = Array(cursor)
        tampered[2] = tampered[2] == "A" ? "B" : "A"
        let fetches = try upstream.entries("/users.json").count
        XCTAssertEqual(fetches, 1)
        XCTAssertEqual(try problem("/people?sort=name&limit=2&cursor=\(String(tampered))").code, "bad-cursor")
        XCTAssertEqual(try problem("/people?sort=name&limit=2&cursor=garbage").code, "bad-cursor")
        XCTAssertEqual(try upstream.entries("/users.json").count, fetches, "/people has no cache: no fetch was made")
    }

    func testParametersNamingNoFilterFieldAreIgnoredEvenWithBrackets() throws {
        let all = try ids("/people")
        XCTAssertEqual(try ids("/people?utm[source]=x&ids[]=1&zip=3&%FF[x]=1"), all)
        XCTAssertEqual(try problem("/people?age[near]=3").code, "bad-parameter", "a filter field's are filters")
    }

    func testTheNextLinkCannotBeTurnedToAnotherTarget() throws {
        // The reviewer's request: the pair would end the URI reference and add a second
        // `rel="next"` off-site if it were copied as sent.
        let target = #"/people?limit=1&x=>,<https://evil.example/p>;rel="next",<"#
        let response = try RawHTTP.get(port: server.port, target)
        XCTAssertEqual(response.status, 200, response.text)
        let header = try XCTUnwrap(response.header("Link"))
        XCTAssertEqual(header.filter { $0 == "<" }.count, 1, header)
        XCTAssertEqual(header.filter { $0 == ">" }.count, 1, header)
        XCTAssertEqual(header.components(separatedBy: "rel=").count, 2, header)
        let next = try XCTUnwrap(try Self.nextLink(header))
        let pair = "x=%3E%2C%3Chttps%3A%2F%2Fevil.example%2Fp%3E%3Brel%3D%22next%22%2C%3C"
        XCTAssertTrue(next.hasPrefix("/people?limit=1&" + pair + "&cursor="), next)
        XCTAssertTrue(next.unicodeScalars.allSatisfy { $0.isASCII && !"<>\"; ,".unicodeScalars.contains($0) }, next)
        let second = try RawHTTP.get(port: server.port, next)
        XCTAssertEqual(second.status, 200, "the rebuilt link still pages: \(second.text)")
        XCTAssertEqual(second.header("Reshape-Total-Count"), response.header("Reshape-Total-Count"))
    }

    // MARK: - The cache, tags and codings

    func testACachedRouteAnswersTwentyViewsWithOneFetch() throws {
        let queries = [
            "", "?fields=name", "?fields=age", "?sort=name", "?sort=-name", "?sort=age", "?sort=-age,name",
            "?age[gte]=40", "?age[lt]=40", "?name[prefix]=A", "?limit=1", "?limit=2", "?limit=3&sort=name",
            "?fields=address.city", "?address.city=London", "?name[exists]=true", "?email[ne]=x",
            "?age[in]=36,41", "?sort=address.city", "?fields=name,age&sort=-age&limit=2",
        ]
        var bodies: Set<String> = []
        for (index, query) in queries.enumerated() {
            let response = try RawHTTP.get(port: server.port, "/cached-people" + query)
            XCTAssertEqual(response.status, 200, query + ": " + response.text)
            XCTAssertEqual(response.header("Reshape-Cache"), index == 0 ? "miss" : "hit", query)
            bodies.insert(response.text)
        }
        XCTAssertGreaterThanOrEqual(bodies.count, 15, "views differ (a few coincide: email[ne]=x is everyone)")
        XCTAssertEqual(try upstream.entries("/users.json").count, 1, "one upstream fetch for twenty views")
    }

    func testTheTagIsTheViewsAnd304WorksPerViewAndCoding() throws {
        let full = try RawHTTP.get(port: server.port, "/cached-people")
        let view = try RawHTTP.get(port: server.port, "/cached-people?fields=name")
        let fullTag = try XCTUnwrap(full.header("ETag"))
        let viewTag = try XCTUnwrap(view.header("ETag"))
        XCTAssertNotEqual(fullTag, viewTag)
        let revalidated = try RawHTTP.get(
            port: server.port, "/cached-people?fields=name", headers: ["If-None-Match: \(viewTag)"])
        XCTAssertEqual(revalidated.status, 304)
        let other = try RawHTTP.get(
            port: server.port, "/cached-people?fields=age", headers: ["If-None-Match: \(viewTag)"])
        XCTAssertEqual(other.status, 200, "another view is another representation")
        // Per coding: the gzip representation of the view has its own tag, and its own 304.
        let gzip = try RawHTTP.get(port: server.port, "/cached-people?fields=name", headers: ["Accept-Encoding: gzip"])
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        let gzipTag = try XCTUnwrap(gzip.header("ETag"))
        XCTAssertNotEqual(gzipTag, viewTag)
        XCTAssertTrue(gzipTag.hasPrefix(String(viewTag.dropLast())), "the view's tag with a coding suffix: \(gzipTag)")
        let gzip304 = try RawHTTP.get(
            port: server.port, "/cached-people?fields=name",
            headers: ["Accept-Encoding: gzip", "If-None-Match: \(gzipTag)"])
        XCTAssertEqual(gzip304.status, 304)
    }
}

extension ClientViewTests {
    /// The target of a `Link: <...>; rel="next"` header; nil without one.
    static func nextLink(_ header: String?) throws -> String? {
        guard let header else { return nil }
        guard header.hasPrefix("<"), let end = header.firstIndex(of: ">"), header.hasSuffix(#"rel="next""#) else {
            throw HarnessError("not a next link: \(header)")
        }
        return String(header[header.index(after: header.startIndex)..<end])
    }
}
