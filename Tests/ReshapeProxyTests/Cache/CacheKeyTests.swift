import ReshapeDigest
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The cache key's encoding is what a shared cache (Redis) stores under: it must not change
/// from one version to the next, or every shared entry is lost at an upgrade.
final class CacheKeyTests: XCTestCase {
    func testTheDigestIsOfTheLengthPrefixedPartsInOrder() throws {
        var route = makeRoute("user", "GET", "/users/{id}", forwardQuery: ["orderBy"])
        route.fingerprint = "f1"
        let request = HTTPRequest(method: "GET", target: "/users/7?orderBy=%22name%22&x=1")
        let key = try XCTUnwrap(CacheKey.of(route: route, parameters: ["id": "7"], request: request))
        let parts = ["user", "f1", "id", "7", "q", "orderBy", "\"name\""]
        let expected = parts.flatMap { Array("\($0.utf8.count):".utf8) + Array($0.utf8) }
        XCTAssertEqual(key.digest, SHA256Digest.hex(expected))
        // The same, from Python's hashlib: what a shared cache already holds stays found.
        XCTAssertEqual(key.digest, "994c8c7cbbc82273b48d0f2d445322ec5595c88c849f0482da6c184ed66ce7ad")
        XCTAssertEqual(key.route, "user")
    }

    func testForwardedHeaderValuesCannotPassForTheNextHeader() throws {
        var route = makeRoute("both", "GET", "/both")
        route.forwardHeaders = ["X-A", "X-B"]
        route.fingerprint = ""
        // Without the count of values, "h" "x-a" "h" "x-b" "v" "h" "x-b" encoded both alike.
        let first = HTTPRequest(
            method: "GET", target: "/both",
            headers: [
                .init(name: "X-A", value: "h"), .init(name: "X-A", value: "x-b"),
                .init(name: "X-A", value: "v"),
            ])
        let second = HTTPRequest(
            method: "GET", target: "/both",
            headers: [
                .init(name: "X-B", value: "v"), .init(name: "X-B", value: "h"),
                .init(name: "X-B", value: "x-b"),
            ])
        let keys = try [first, second].map { try XCTUnwrap(CacheKey.of(route: route, parameters: [:], request: $0)) }
        XCTAssertNotEqual(keys[0].digest, keys[1].digest)
        let parts = ["both", "", "h", "x-a", "3", "h", "x-b", "v", "h", "x-b", "0"]
        XCTAssertEqual(
            keys[0].digest, SHA256Digest.hex(parts.flatMap { Array("\($0.utf8.count):".utf8) + Array($0.utf8) }))
    }

    func testLengthsOfSeveralDigitsAreWrittenInFull() throws {
        var route = makeRoute("user", "GET", "/users/{id}")
        route.fingerprint = ""
        let long = String(repeating: "é", count: 600)  // 1,200 bytes
        let key = try XCTUnwrap(
            CacheKey.of(route: route, parameters: ["id": long], request: HTTPRequest(method: "GET", target: "/users/x"))
        )
        let parts = ["user", "", "id", long]
        let expected = parts.flatMap { Array("\($0.utf8.count):".utf8) + Array($0.utf8) }
        XCTAssertEqual(key.digest, SHA256Digest.hex(expected))
    }

    func testAKeyOfTheRouteAndPathAloneIsKeptAsItsBytesAndSharedAsTheirDigest() throws {
        var route = makeRoute("user", "GET", "/users/{id}")
        route.fingerprint = "f1"
        let request = HTTPRequest(method: "GET", target: "/users/7")
        let key = try XCTUnwrap(CacheKey.of(route: route, parameters: ["id": "7"], request: request))
        XCTAssertFalse(key.isDigest)
        XCTAssertEqual(key, try XCTUnwrap(CacheKey.of(route: route, parameters: ["id": "7"], request: request)))
        XCTAssertNotEqual(key, try XCTUnwrap(CacheKey.of(route: route, parameters: ["id": "8"], request: request)))
        // What the shared cache stores under is unchanged: the digest of the same encoding.
        let parts = ["user", "f1", "id", "7"]
        XCTAssertEqual(key.digest, SHA256Digest.hex(parts.flatMap { Array("\($0.utf8.count):".utf8) + Array($0.utf8) }))
        XCTAssertEqual(SharedCacheEntry.key(key), "reshape:v1:" + key.digest)
    }

    func testALongPathKeyIsKeptAsADigestAndAStoredKeyIsCounted() throws {
        let route = makeRoute("search", "GET", "/search/{q}")
        let request = HTTPRequest(method: "GET", target: "/search/x")
        let long = try XCTUnwrap(
            CacheKey.of(route: route, parameters: ["q": String(repeating: "a", count: 8_000)], request: request))
        XCTAssertTrue(long.isDigest, "an 8 KB capture is not kept in full")
        XCTAssertEqual(long.extraBytes, 0)
        let short = try XCTUnwrap(CacheKey.of(route: route, parameters: ["q": "a"], request: request))
        XCTAssertFalse(short.isDigest)
        XCTAssertGreaterThan(short.extraBytes, 0)
        // The cache counts what the stored key weighs beyond a digest.
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let stored = ResponseCache.Stored(
            response: HTTPResponse(status: 200, body: Array("{}".utf8)), dropped: 0, route: route,
            policy: CachePolicy(
                ttlMilliseconds: 60_000, staleWhileRevalidateMilliseconds: 0, staleIfErrorMilliseconds: 0),
            now: 0, upstreamMaxAge: nil)
        _ = cache.lookup(short, now: 0) { _ in }
        _ = cache.finish(short, storing: stored)
        XCTAssertEqual(cache.counters.bytes, stored.cost + short.extraBytes)
    }

    func testAKeyWithTheClientsQueryOrHeadersIsKeptOnlyAsADigest() throws {
        var route = makeRoute("user", "GET", "/users/{id}", forwardQuery: ["token"])
        route.forwardHeaders = []
        let withQuery = HTTPRequest(method: "GET", target: "/users/7?token=secret")
        let key = try XCTUnwrap(CacheKey.of(route: route, parameters: ["id": "7"], request: withQuery))
        XCTAssertTrue(key.isDigest)
        XCTAssertFalse(String(describing: key).contains("secret"))
        var forwarding = makeRoute("both", "GET", "/both")
        forwarding.forwardHeaders = ["Authorization"]
        let withHeader = HTTPRequest(
            method: "GET", target: "/both", headers: [.init(name: "Authorization", value: "Bearer secret")])
        XCTAssertTrue(try XCTUnwrap(CacheKey.of(route: forwarding, parameters: [:], request: withHeader)).isDigest)
    }

    func testSHA256GivesTheStandardsVectors() {
        // FIPS 180-2 appendix B.1, and the empty message.
        XCTAssertEqual(
            SHA256Digest.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256Digest.hex([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
