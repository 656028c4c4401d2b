import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// How a `cache:` route reads an upstream's `Cache-Control` for storing: all of it, all but a
/// Firebase host's `no-cache` (the default there), or none (`ignore`); and why an answer is
/// kept out.
final class CacheControlReadingTests: XCTestCase {
    private let firebase = Upstream(
        name: "firebase", scheme: "https", host: "my-app.firebaseio.com", port: nil, basePath: "")
    private let other = Upstream(name: "api", scheme: "https", host: "api.example.com", port: nil, basePath: "")

    private func policy(_ reading: UpstreamCacheControl?) -> CachePolicy {
        var policy = CachePolicy(ttlMilliseconds: 30_000)
        policy.upstreamCacheControl = reading
        return policy
    }

    func testTheDefaultReadsAllButAFirebaseHostsNoCache() {
        XCTAssertEqual(CacheControl.reading(policy(nil), upstream: firebase), .allButNoCache)
        XCTAssertEqual(CacheControl.reading(policy(nil), upstream: other), .all)
        XCTAssertEqual(CacheControl.reading(policy(.honor), upstream: firebase), .all)
        XCTAssertEqual(CacheControl.reading(policy(.ignore), upstream: other), .nothing)
        XCTAssertEqual(CacheControl.reading(nil, upstream: firebase), .all, "a route without cache: stores nothing")
    }

    func testAFirebaseHostsNoCacheIsNotReadButNoStoreAndPrivateAre() {
        XCTAssertTrue(CacheControl(header: "no-cache", reading: .allButNoCache).mayStore)
        XCTAssertEqual(CacheControl(header: "no-cache, max-age=5", reading: .allButNoCache).maxAge, 5)
        XCTAssertEqual(CacheControl(header: "no-cache, no-store", reading: .allButNoCache).skipReason, "no-store")
        XCTAssertEqual(CacheControl(header: "private", reading: .allButNoCache).skipReason, "private")
    }

    func testIgnoreReadsNothingAndHonorEverything() {
        let ignored = CacheControl(header: "no-store, private, max-age=1", reading: .nothing)
        XCTAssertTrue(ignored.mayStore)
        XCTAssertNil(ignored.maxAge)
        XCTAssertFalse(ignored.isPrivate)
        XCTAssertEqual(CacheControl(header: "no-cache", reading: .all).skipReason, "no-cache")
        XCTAssertNil(CacheControl(header: "max-age=60", reading: .all).skipReason)
    }

    func testAnAnswerOfSeveralFetchesKeepsTheReason() {
        let combined = CacheControl(header: "max-age=60", reading: .all)
            .combined(with: CacheControl(header: "no-cache", reading: .all))
        XCTAssertEqual(combined.skipReason, "no-cache")
    }
}
