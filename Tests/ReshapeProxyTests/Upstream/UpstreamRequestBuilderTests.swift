import ReshapeProblem
import ReshapeRules
import XCTest

@testable import ReshapeProxy

final class UpstreamRequestBuilderTests: XCTestCase {
    private let route = makeRoute(
        "user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json",
        forwardQuery: ["orderBy", "limitToFirst"])

    private func url(_ id: String, upstream: Upstream = makeUpstream(), query: Substring = "") throws -> String {
        try UpstreamRequestBuilder.build(route: route, upstream: upstream, parameters: ["id": id], rawQuery: query).url
    }

    /// Goes through the router first, as a real request does, so the client's escapes are decoded once.
    private func urlForClientPath(_ path: Substring) throws -> String {
        guard case .route(_, let parameters) = Router(routes: [route]).match(method: "GET", path: path) else {
            throw Problem.badRequest("no match")
        }
        return try url(parameters["id"]!)
    }

    func testPlainParameter() throws {
        XCTAssertEqual(try url("u1"), "https://api.example.com/users/u1.json")
    }

    func testHostileParametersStayInsideOneSegmentOfTheRulePath() throws {
        let cases: [(Substring, String)] = [
            ("/users/a%2F..%2Fadmin", "a%2F..%2Fadmin"),
            ("/users/%00", "%00"),
            ("/users/@evil.com", "%40evil.com"),
            ("/users/x%23frag", "x%23frag"),
            ("/users/x%3Fq=1", "x%3Fq%3D1"),
            ("/users/a%0D%0AHost:%20evil", "a%0D%0AHost%3A%20evil"),
            ("/users/%C3%A9", "%C3%A9"),
            ("/users/a:b", "a%3Ab"),
        ]
        for (path, encoded) in cases {
            XCTAssertEqual(try urlForClientPath(path), "https://api.example.com/users/\(encoded).json", "\(path)")
        }
    }

    func testDotSegmentsAndEmptyParametersAreRefused() {
        for value in ["..", ".", ""] {
            XCTAssertThrowsError(try url(value), value) { error in
                XCTAssertEqual((error as? Problem)?.status, 400)
                XCTAssertEqual((error as? Problem)?.code, "bad-parameter")
            }
        }
        XCTAssertThrowsError(try urlForClientPath("/users/%2E%2E"), "escaped dots decode to ..")
    }

    func testHostPortBasePathAndIPv6() throws {
        XCTAssertEqual(
            try url("1", upstream: makeUpstream(host: "::1", port: 8080, basePath: "/v1")),
            "https://[::1]:8080/v1/users/1.json")
    }

    func testOnlyNamedClientQueryParametersAreForwardedAfterTheRuleQuery() throws {
        let upstream = makeUpstream(query: [NameValue(name: "print", value: "silent")])
        let query: Substring = "orderBy=%22%24key%22&auth=stolen&limitToFirst=2&limitToFirst=3&x=1"
        XCTAssertEqual(
            try url("1", upstream: upstream, query: query),
            "https://api.example.com/users/1.json?print=silent&orderBy=%22%24key%22&limitToFirst=2&limitToFirst=3")
    }

    func testForwardedValuesAreReEncodedSoTheyCannotAddParameters() throws {
        XCTAssertEqual(
            try url("1", query: "orderBy=a%26auth%3Dx"), "https://api.example.com/users/1.json?orderBy=a%26auth%3Dx")
        XCTAssertEqual(try url("1", query: "orderBy=a+b"), "https://api.example.com/users/1.json?orderBy=a%20b")
    }

    func testABadQueryEscapeIsABadRequest() {
        XCTAssertThrowsError(try url("1", query: "orderBy=%G1")) { XCTAssertEqual(($0 as? Problem)?.status, 400) }
    }

    func testHeadersTimeoutsAndSecretsComeFromTheRule() throws {
        let upstream = makeUpstream(
            headers: [NameValue(name: "Authorization", value: "Bearer s3cret")], secrets: ["s3cret"])
        let request = try UpstreamRequestBuilder.build(
            route: route, upstream: upstream, parameters: ["id": "1"], rawQuery: "")
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(
            request.headers,
            [
                NameValue(name: "Accept", value: "application/json"),
                NameValue(name: "Authorization", value: "Bearer s3cret"),
            ])
        XCTAssertEqual(request.timeoutMilliseconds, upstream.timeoutMilliseconds)
        XCTAssertEqual(request.connectTimeoutMilliseconds, upstream.connectTimeoutMilliseconds)
        XCTAssertEqual(request.maxBodyBytes, upstream.maxBodyBytes)
        XCTAssertEqual(request.upstreamName, "api")
        XCTAssertEqual(request.secrets, ["s3cret"])
    }

    func testARuleAcceptHeaderReplacesTheDefault() throws {
        let upstream = makeUpstream(headers: [NameValue(name: "accept", value: "application/vnd.api+json")])
        let request = try UpstreamRequestBuilder.build(
            route: route, upstream: upstream, parameters: ["id": "1"], rawQuery: "")
        XCTAssertEqual(request.headers, [NameValue(name: "accept", value: "application/vnd.api+json")])
    }
}
