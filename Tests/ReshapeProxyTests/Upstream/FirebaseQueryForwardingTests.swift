import ReshapeProblem
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// A route with `firebase-query: true`: the builder checks and forwards Firebase's query
/// parameters, and the cache key holds them; other routes read none of them.
final class FirebaseQueryForwardingTests: XCTestCase {
    private func route(_ use: FirebaseQuery.Use, forwardQuery: [String] = []) -> Route {
        var route = makeRoute("users", "GET", "/users", upstreamPath: "/users.json", forwardQuery: forwardQuery)
        route.firebaseQuery = use
        route.fingerprint = "f"
        return route
    }

    private func url(_ route: Route, _ query: Substring) throws -> String {
        try UpstreamRequestBuilder.build(
            route: route, upstream: makeUpstream(query: [NameValue(name: "auth", value: "t")]), parameters: [:],
            rawQuery: query
        ).url
    }

    private func problem(_ route: Route, _ query: Substring) -> Problem? {
        do {
            _ = try url(route, query)
            XCTFail("accepted \(query)")
        } catch {
            return error as? Problem
        }
        return nil
    }

    func testTheQueryIsForwardedCheckedEncodedAndInAFixedOrder() throws {
        XCTAssertEqual(
            try url(
                route(.forwardAndOrder, forwardQuery: ["print"]), #"limitToFirst=2&x=1&print=pretty&orderBy="a b""#),
            "https://api.example.com/users.json?auth=t&orderBy=%22a%20b%22&limitToFirst=2&print=pretty")
        XCTAssertEqual(
            try url(route(.forward), "shallow=true"), "https://api.example.com/users.json?auth=t&shallow=true")
        XCTAssertEqual(
            try url(route(.off), #"orderBy="a"&limitToFirst=2"#), "https://api.example.com/users.json?auth=t",
            "a route without firebase-query forwards none of it")
    }

    func testARefusedQueryIsABadParameterNamingIt() throws {
        let refused = try XCTUnwrap(problem(route(.forward), #"orderBy="a"&limitToFirst=0"#))
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.code, "bad-parameter")
        XCTAssertEqual(refused.title, "Bad parameter")
        XCTAssertTrue(refused.detail.hasPrefix("'limitToFirst' "), refused.detail)
        XCTAssertEqual(refused.extra.first { $0.key == "parameter" }?.value, .string("limitToFirst"))
        XCTAssertEqual(problem(route(.forward), "orderBy=%zz")?.code, "bad-request")
    }

    func testPriorityIsRefusedOnlyWhereRecordsAreOrderedByTheQuery() throws {
        let priority: Substring = #"orderBy="$priority"&limitToFirst=1"#
        XCTAssertEqual(
            try url(route(.forward), priority),
            "https://api.example.com/users.json?auth=t&orderBy=%22%24priority%22&limitToFirst=1")
        let refused = try XCTUnwrap(problem(route(.forwardAndOrder), priority))
        XCTAssertEqual(refused.extra.first { $0.key == "parameter" }?.value, .string("orderBy"))
        XCTAssertEqual(
            try UpstreamRequestBuilder.firebaseQuery(route: route(.forwardAndOrder), rawQuery: #"orderBy="age""#)?
                .order, .child(["age"]))
    }

    func testThePathCaptureRefusalHasTheGenericTitleToo() throws {
        let route = makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json")
        XCTAssertThrowsError(
            try UpstreamRequestBuilder.build(
                route: route, upstream: makeUpstream(), parameters: ["id": ".."], rawQuery: "")
        ) { error in
            XCTAssertEqual((error as? Problem)?.title, "Bad parameter")
            XCTAssertEqual((error as? Problem)?.extra.first { $0.key == "parameter" }?.value, .string("id"))
        }
    }

    func testEachQueryIsItsOwnCacheKeyWhateverTheParametersOrder() throws {
        func key(_ route: Route, _ target: String) -> CacheKey? {
            CacheKey.of(route: route, parameters: [:], request: HTTPRequest(method: "GET", target: target))
        }
        let queried = route(.forwardAndOrder)
        let first = try XCTUnwrap(key(queried, #"/users?orderBy="age"&limitToFirst=2"#))
        XCTAssertEqual(key(queried, #"/users?limitToFirst=2&other=1&orderBy="age""#), first)
        XCTAssertNotEqual(key(queried, #"/users?orderBy="age"&limitToFirst=3"#), first)
        XCTAssertNotEqual(key(queried, "/users"), first)
        XCTAssertNil(key(queried, "/users?limitToFirst=2"), "a refused query is never keyed")
        let plain = route(.off)
        XCTAssertEqual(key(plain, #"/users?orderBy="age""#), key(plain, "/users"), "other routes ignore it")
    }
}
