import ReshapeRules
import XCTest

@testable import ReshapeProxy

final class RouterTests: XCTestCase {
    private let router = Router(routes: [
        makeRoute("user", "GET", "/users/{id}"),
        makeRoute("me", "GET", "/users/me"),
        makeRoute("users", "GET", "/users"),
        makeRoute("create", "POST", "/users"),
        makeRoute("posts", "GET", "/users/{id}/posts/{post}"),
    ])

    private func routeName(_ method: String, _ path: Substring) -> (String, [String: String])? {
        if case .route(let route, let parameters) = router.match(method: method, path: path) {
            return (route.name, parameters)
        }
        return nil
    }

    func testLiteralSegmentsBeatParametersWhateverTheRuleOrder() {
        XCTAssertEqual(routeName("GET", "/users/me")?.0, "me")
        XCTAssertEqual(routeName("GET", "/users/42")?.0, "user")
        XCTAssertEqual(routeName("GET", "/users/42")?.1, ["id": "42"])
    }

    func testParametersCaptureExactlyOneNonEmptySegment() {
        XCTAssertEqual(routeName("GET", "/users/7/posts/p1")?.1, ["id": "7", "post": "p1"])
        guard case .notFound = router.match(method: "GET", path: "/users/") else {
            return XCTFail("empty segment matched")
        }
        guard case .notFound = router.match(method: "GET", path: "/users/1/2") else {
            return XCTFail("two segments matched")
        }
        guard case .notFound = router.match(method: "GET", path: "/nope") else {
            return XCTFail("unknown path matched")
        }
    }

    func testCapturedSegmentsArePercentDecoded() {
        XCTAssertEqual(routeName("GET", "/users/a%20b")?.1, ["id": "a b"])
        XCTAssertEqual(routeName("GET", "/users/a%2Fb")?.1, ["id": "a/b"])
        XCTAssertEqual(routeName("GET", "/users/%C3%A9")?.1, ["id": "é"])
    }

    func testInvalidPercentEncodingIsABadRequest() {
        for path: Substring in ["/users/%ZZ", "/users/%4", "/users/%FF"] {
            guard case .badRequest = router.match(method: "GET", path: path) else { return XCTFail("\(path) accepted") }
        }
    }

    func testWrongMethodIs405WithEveryAllowedMethod() {
        guard case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/users") else {
            return XCTFail()
        }
        XCTAssertEqual(Set(allowed), ["GET", "HEAD", "POST"])
        let decision = ServingRules(
            RuleSet(upstreams: ["api": makeUpstream()], routes: router.routesForTesting, digest: "d")
        )
        .decide(HTTPRequest(method: "DELETE", target: "/users"))
        guard case .respond(let response, _, let code) = decision else { return XCTFail() }
        XCTAssertEqual(response.status, 405)
        XCTAssertEqual(code, "method-not-allowed")
        XCTAssertTrue(response.headers.contains { $0.name == "Allow" && $0.value.contains("POST") })
    }

    func testHeadMatchesGetRoutes() {
        XCTAssertEqual(routeName("HEAD", "/users")?.0, "users")
    }

    func testTheAdminPrefixIsReservedBeforeRules() {
        let shadowing = Router(routes: [makeRoute("shadow", "GET", "/_reshape/{what}")])
        guard case .admin(let name) = shadowing.match(method: "GET", path: "/_reshape/metrics") else {
            return XCTFail()
        }
        XCTAssertEqual(name, "metrics")
    }

    func testWithASeparateAdminPortEachPortAnswersOnlyItsOwnEndpoints() {
        guard case .notFound = router.match(method: "GET", path: "/_reshape/live", endpoints: .routes) else {
            return XCTFail()
        }
        guard case .route = router.match(method: "GET", path: "/users", endpoints: .routes) else { return XCTFail() }
        guard case .admin("live") = router.match(method: "GET", path: "/_reshape/live", endpoints: .admin) else {
            return XCTFail()
        }
        guard case .notFound = router.match(method: "GET", path: "/users", endpoints: .admin) else { return XCTFail() }
        guard case .notFound = router.match(method: "POST", path: "/users", endpoints: .admin) else {
            return XCTFail("no 405 either: the admin port knows no rule paths")
        }
    }

    func testACombiningMarkAfterTheLeadingSlashIsPartOfTheFirstSegment() {
        let router = Router(routes: [makeRoute("users", "GET", "/users")])
        // "/" and U+0301 make one Character: dropping a character took the mark with it, and
        // this path reached /users.
        guard case .notFound = router.match(method: "GET", path: "/\u{301}users") else {
            return XCTFail("a mark after the slash is not the literal's bytes")
        }
        guard case .admin(let name) = router.match(method: "GET", path: "/_reshape/\u{301}metrics") else {
            return XCTFail("the admin prefix is found by bytes")
        }
        XCTAssertEqual(Array(name.utf8), Array("\u{301}metrics".utf8))
    }

    func testPathsAreMatchedByteForByte() {
        let router = Router(routes: [makeRoute("cafe", "GET", "/caf\u{E9}"), makeRoute("user", "GET", "/users/{id}")])
        guard case .route(let route, _) = router.match(method: "GET", path: "/caf\u{E9}"), route.name == "cafe" else {
            return XCTFail("the same bytes match")
        }
        // Canonically equivalent but other bytes (e + combining acute): not the literal.
        guard case .notFound = router.match(method: "GET", path: "/cafe\u{301}") else {
            return XCTFail("a decomposed spelling is other bytes")
        }
        // A slash is a separator whatever follows it, a combining mark included.
        guard case .route(_, let parameters) = router.match(method: "GET", path: "/users/\u{301}x") else {
            return XCTFail("the slash before a combining mark separates")
        }
        XCTAssertEqual(parameters["id"], "\u{301}x")
        // A rule's template is split the same way, so its own path matches it.
        let marked = Router(routes: [makeRoute("marked", "GET", "/tags/\u{301}x")])
        guard case .route(let own, _) = marked.match(method: "GET", path: "/tags/\u{301}x"), own.name == "marked" else {
            return XCTFail("a template with a combining mark after a slash matches its own path")
        }
        XCTAssertEqual(
            PathTemplate.segments(of: "a//b/"), "a//b/".split(separator: "/", omittingEmptySubsequences: false))
        XCTAssertEqual(PathTemplate.segments(of: ""), [""])
    }
}

extension Router {
    /// The routes the router was built with, to build a ServingRules over the same set.
    var routesForTesting: [Route] {
        [
            makeRoute("user", "GET", "/users/{id}"), makeRoute("users", "GET", "/users"),
            makeRoute("create", "POST", "/users"),
        ]
    }
}

final class RouterByteComparisonTests: XCTestCase {
    /// Literal segments match byte for byte: a decomposed "é" is not the route's precomposed one
    /// (`==` on strings would say they are equal).
    func testLiteralsMatchByteForByte() {
        func same(_ segment: String, _ text: String) -> Bool {
            Array(segment.utf8).withUnsafeBufferPointer { Router.sameBytes($0, text) }
        }
        XCTAssertTrue(same("café", "café"))
        XCTAssertFalse(same("cafe\u{301}", "caf\u{E9}"))
        XCTAssertFalse(same("users", "Users"))
        XCTAssertTrue(same("", ""))
    }
}
