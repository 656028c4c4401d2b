import CCurl
import ReshapeRules
import XCTest

@testable import ReshapeProxy
@testable import ReshapeServer

/// The curl header list of an upstream request (`HeaderList`) and which lists are kept for
/// reuse (`HeaderListCache`, pure: tested with plain objects standing for lists).
final class HeaderListTests: XCTestCase {
    private final class Token {}

    private typealias Cache = HeaderListCache<Token>

    private let operatorHeaders = [
        NameValue(name: "Accept", value: "application/json"),
        NameValue(name: "X-Operator", value: "token"),
    ]

    private func lines(of list: HeaderList) -> [String] {
        var lines: [String] = []
        var node = list.list
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return lines
    }

    private func request(_ method: String, body: [UInt8]? = nil) -> UpstreamRequest {
        UpstreamRequest(
            method: method, url: "http://127.0.0.1/", headers: [], body: body, timeoutMilliseconds: 1000,
            connectTimeoutMilliseconds: 1000, maxBodyBytes: 1000, upstreamName: "demo")
    }

    // MARK: - The curl list

    func testEachHeaderIsOneLineAndAnEmptyValueIsSentEmpty() {
        XCTAssertEqual(HeaderList.line(for: NameValue(name: "X-A", value: "1 2")), "X-A: 1 2")
        XCTAssertEqual(
            HeaderList.line(for: NameValue(name: "X-Empty", value: "")), "X-Empty;",
            "`X-Empty:` would tell curl to remove the header")
    }

    func testTheCurlListHoldsTheLinesInOrderAndStopsContinueOnlyForWrites() {
        XCTAssertEqual(
            lines(of: HeaderList(operatorHeaders, forBody: false)),
            ["Accept: application/json", "X-Operator: token"])
        XCTAssertEqual(
            lines(of: HeaderList(operatorHeaders, forBody: true)),
            ["Accept: application/json", "X-Operator: token", "Expect:"])
        XCTAssertNil(HeaderList([], forBody: false).list)
    }

    func testWritesAndRequestsWithABodyAreForBody() {
        XCTAssertFalse(HeaderList.forBody(request("GET")))
        XCTAssertTrue(HeaderList.forBody(request("GET", body: [1])))
        XCTAssertTrue(HeaderList.forBody(request("POST")))
        XCTAssertTrue(HeaderList.forBody(request("DELETE")))
    }

    // MARK: - Which lists are kept

    func testAHeaderSetBuiltOnceIsNotKept() {
        var cache = Cache()
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        XCTAssertNil(cache.list(upstream: "demo", headers: operatorHeaders, forBody: false))
    }

    func testAHeaderSetBuiltTwiceIsKeptAndReusedForExactlyThoseHeaders() {
        var cache = Cache()
        let second = Token()
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        cache.built(second, upstream: "demo", headers: operatorHeaders, forBody: false)
        XCTAssertTrue(cache.list(upstream: "demo", headers: operatorHeaders, forBody: false) === second)
        XCTAssertNil(cache.list(upstream: "demo", headers: operatorHeaders, forBody: true), "a write's list differs")
        XCTAssertNil(cache.list(upstream: "other", headers: operatorHeaders, forBody: false), "kept per upstream")
        let forwarded = operatorHeaders + [NameValue(name: "Authorization", value: "Bearer a")]
        XCTAssertNil(
            cache.list(upstream: "demo", headers: forwarded, forBody: false),
            "never another request's headers")
        XCTAssertNil(
            cache.list(upstream: "demo", headers: [operatorHeaders[1], operatorHeaders[0]], forBody: false),
            "the order is part of the set")
    }

    func testEachUpstreamKeepsItsNewestLists() {
        var cache = Cache()
        let sets = (0...Cache.listsPerUpstream).map { [NameValue(name: "X-Set", value: String($0))] }
        var kept: [Token] = []
        for headers in sets {
            let token = Token()
            cache.built(Token(), upstream: "demo", headers: headers, forBody: false)
            cache.built(token, upstream: "demo", headers: headers, forBody: false)
            kept.append(token)
        }
        XCTAssertNil(cache.list(upstream: "demo", headers: sets[0], forBody: false), "the oldest went")
        for index in 1..<sets.count {
            XCTAssertTrue(cache.list(upstream: "demo", headers: sets[index], forBody: false) === kept[index])
        }
    }

    func testOnlyRecentBuildsAreRemembered() {
        var cache = Cache()
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        for index in 0..<Cache.rememberedBuilds {
            let once = [NameValue(name: "X-Once", value: String(index))]
            cache.built(Token(), upstream: "demo", headers: once, forBody: false)
        }
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        XCTAssertNil(
            cache.list(upstream: "demo", headers: operatorHeaders, forBody: false),
            "its first build was forgotten")
        let third = Token()
        cache.built(third, upstream: "demo", headers: operatorHeaders, forBody: false)
        XCTAssertTrue(cache.list(upstream: "demo", headers: operatorHeaders, forBody: false) === third)
    }

    func testRemoveAllForgetsListsAndBuilds() {
        var cache = Cache()
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        cache.removeAll()
        XCTAssertNil(cache.list(upstream: "demo", headers: operatorHeaders, forBody: false))
        cache.built(Token(), upstream: "demo", headers: operatorHeaders, forBody: false)
        XCTAssertNil(cache.list(upstream: "demo", headers: operatorHeaders, forBody: false), "a first build again")
    }
}
