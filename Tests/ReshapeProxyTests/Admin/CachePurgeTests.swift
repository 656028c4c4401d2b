import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// `POST /_reshape/cache/purge?route=NAME` on its own: who may ask, what it refuses, and what
/// it drops. Which clients an operator's endpoint answers is the lifecycle's (`CacheLifecycleTests`).
final class CachePurgeTests: XCTestCase {
    private let routes = [
        makeRoute("users", "GET", "/users", upstreamPath: "/users.json"),
        makeRoute("posts", "GET", "/posts", upstreamPath: "/posts.json"),
    ]

    private func purge(_ target: String, method: String = "POST", operator: Bool = true, cache: ResponseCache?)
        -> HTTPResponse
    {
        CachePurge.response(
            HTTPRequest(method: method, target: target), operatorMayAsk: `operator`, routes: routes, cache: cache)
    }

    private func code(_ response: HTTPResponse) -> String? {
        guard case .object(let object)? = try? JSON.parse(response.body), case .string(let code)? = object["code"]
        else { return nil }
        return code
    }

    func testOnlyAnOperatorIsAnsweredAndOnlyAPost() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        XCTAssertEqual(purge("/_reshape/cache/purge?route=users", operator: false, cache: cache).status, 404)
        XCTAssertEqual(purge("/_reshape/cache/purge?route=users", method: "GET", cache: cache).status, 405)
    }

    func testTheRouteMustBeNamedAndExist() {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        XCTAssertEqual(purge("/_reshape/cache/purge", cache: cache).status, 400)
        XCTAssertEqual(purge("/_reshape/cache/purge?route=", cache: cache).status, 400)
        let unknown = purge("/_reshape/cache/purge?route=nope", cache: cache)
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(code(unknown), "no-such-route")
    }

    func testItSaysHowManyAnswersItDroppedEvenWithoutACache() {
        XCTAssertEqual(
            purge("/_reshape/cache/purge?route=posts", cache: nil).body.text, #"{"route":"posts","purged":0}"#)
        XCTAssertEqual(
            purge("/_reshape/cache/purge?route=users&route=posts", cache: ResponseCache(capacityBytes: 1 << 20))
                .body.text,
            #"{"route":"posts","purged":0}"#, "the last `route=` wins")
    }
}
