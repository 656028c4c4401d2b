import ReshapeCompression
import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The lifecycle's last step: the coding a request gets, 304 per representation, and a cached
/// answer compressed once per coding and kept with its entry.
final class RepresentationLifecycleTests: XCTestCase {
    private func route(cached: Bool, forwardHeaders: [String] = []) -> Route {
        var route = Route(
            name: "users", method: "GET", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            forwardHeaders: forwardHeaders, pipeline: Pipeline(steps: []),
            location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        if cached {
            route.cache = CachePolicy(
                ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 0, staleIfErrorMilliseconds: 0)
        }
        route.fingerprint = "f1"
        return route
    }

    private let compression = AnswerCompression()

    private func begin(
        _ route: Route, cache: ResponseCache?, headers: [String: String] = [:], now: Double = 0
    ) -> (RequestLifecycle, RequestLifecycle.Action) {
        let settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(), cache: cache,
            compression: compression, admin: { _ in .json(200, Array(#"{"status":"live"}"#.utf8)) })
        return RequestLifecycle.begin(
            HTTPRequest(
                method: "GET", target: "/users",
                headers: headers.map { NameValue(name: $0.key, value: $0.value) }),
            rules: ServingRules(RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d")),
            draining: false, settings: settings, now: now, cacheWaiter: { _ in })
    }

    /// A JSON array of about `bytes` bytes.
    private func upstream(_ bytes: Int) -> UpstreamResult {
        var text = "["
        var index = 0
        while text.utf8.count < bytes {
            text += #"{"id":\#(index),"name":"user \#(index)"},"#
            index += 1
        }
        return .response(
            UpstreamResponse(
                status: 200, contentType: "application/json", body: Array((text.dropLast() + "]").utf8)))
    }

    private func answer(_ action: RequestLifecycle.Action) throws -> HTTPResponse {
        guard case .respond(let response, _) = action else { throw XCTSkip("not an answer: \(action)") }
        return response
    }

    func testAnUncachedRouteIsNoCacheAndCompressedForClientsThatAskForIt() throws {
        let (lifecycle, _) = begin(route(cached: false), cache: nil, headers: ["Accept-Encoding": "gzip"])
        let gzip = try answer(lifecycle.fetchFinished(0, upstream(4000), seconds: 0))
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        XCTAssertEqual(gzip.header("Cache-Control"), "no-cache")
        XCTAssertEqual(gzip.header("Vary"), "Accept-Encoding")
        XCTAssertTrue(gzip.header("ETag")?.hasSuffix("-gzip\"") ?? false)

        let (plain, _) = begin(route(cached: false), cache: nil)
        let identity = try answer(plain.fetchFinished(0, upstream(4000), seconds: 0))
        XCTAssertNil(identity.header("Content-Encoding"))
        XCTAssertEqual(identity.header("ETag"), EntityTag.of(identity.body))
        XCTAssertEqual(ContentNegotiation.entityTag(identity.header("ETag")!, coding: .gzip), gzip.header("ETag"))
    }

    func testIfNoneMatchMatchesOnlyTheSameRepresentation() throws {
        let (first, _) = begin(route(cached: false), cache: nil, headers: ["Accept-Encoding": "gzip"])
        let gzipTag = try XCTUnwrap(answer(first.fetchFinished(0, upstream(4000), seconds: 0)).header("ETag"))

        let (again, _) = begin(
            route(cached: false), cache: nil, headers: ["Accept-Encoding": "gzip", "If-None-Match": gzipTag])
        let notModified = try answer(again.fetchFinished(0, upstream(4000), seconds: 0))
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.header("ETag"), gzipTag)
        XCTAssertEqual(notModified.header("Vary"), "Accept-Encoding")
        XCTAssertNil(notModified.header("Content-Encoding"))
        XCTAssertTrue(notModified.body.isEmpty)

        let (other, _) = begin(
            route(cached: false), cache: nil, headers: ["Accept-Encoding": "br", "If-None-Match": gzipTag])
        let brotli = try answer(other.fetchFinished(0, upstream(4000), seconds: 0))
        XCTAssertEqual(brotli.status, 200, "the client holds the gzip bytes; it asked for br")
        XCTAssertEqual(brotli.header("Content-Encoding"), "br")

        let (identity, _) = begin(route(cached: false), cache: nil, headers: ["If-None-Match": gzipTag])
        XCTAssertEqual(try answer(identity.fetchFinished(0, upstream(4000), seconds: 0)).status, 200)
    }

    func testACachedAnswerIsCompressedOncePerCodingAndChargedToTheCache() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let cached = route(cached: true)
        let (leader, _) = begin(cached, cache: cache)
        let miss = try answer(leader.fetchFinished(0, upstream(8000), seconds: 0))
        XCTAssertNil(miss.header("Content-Encoding"))
        let identityBytes = cache.counters.bytes

        let (_, firstGzip) = begin(cached, cache: cache, headers: ["Accept-Encoding": "gzip"], now: 1)
        let gzip = try answer(firstGzip)
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        XCTAssertEqual(gzip.header("Reshape-Cache"), "hit")
        XCTAssertEqual(cache.counters.bytes, identityBytes + gzip.body.count, "the gzip bytes are kept with the entry")

        let (_, secondGzip) = begin(cached, cache: cache, headers: ["Accept-Encoding": "gzip"], now: 2)
        XCTAssertEqual(try answer(secondGzip).body, gzip.body)
        XCTAssertEqual(cache.counters.bytes, identityBytes + gzip.body.count, "a hit compresses nothing more")

        let (_, zstd) = begin(cached, cache: cache, headers: ["Accept-Encoding": "zstd"], now: 3)
        let zstdBody = try answer(zstd).body
        XCTAssertEqual(cache.counters.bytes, identityBytes + gzip.body.count + zstdBody.count)

        cache.purge(route: "users")
        XCTAssertEqual(cache.counters.bytes, 0, "the encodings leave with their entry")
    }

    func testAnEncodingStaysChargedWhenItsEntryMovesInTheRecencyList() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let cached = route(cached: true)
        let policy = try XCTUnwrap(cached.cache)
        guard case .response(let fetched) = upstream(8000) else { return XCTFail() }
        func stored() -> ResponseCache.Stored {
            ResponseCache.Stored(
                response: .json(200, fetched.body, extraHeaders: [NameValue(name: "ETag", value: "\"t\"")]),
                dropped: 0, route: cached, policy: policy, now: 0, upstreamMaxAge: nil)
        }
        let a = CacheKey(route: "users", digest: "a")
        let b = CacheKey(route: "users", digest: "b")
        for key in [a, b] {
            _ = cache.lookup(key, now: 0, waiter: { _ in })
            _ = cache.finish(key, storing: stored())
        }
        guard case .fresh(let entryA) = cache.lookup(a, now: 1, waiter: { _ in }) else { return XCTFail() }
        let before = cache.counters.bytes
        var compressions = 0
        let gzip = cache.body(of: ResponseCache.Entry(key: a, stored: entryA), as: .gzip) {
            compressions += 1
            return self.compression.compressor.compress($0, as: .gzip)
        }
        XCTAssertEqual(cache.counters.bytes, before + (gzip?.count ?? -1))
        _ = cache.lookup(b, now: 2, waiter: { _ in })  // b newest, then a again: a is moved twice
        guard case .fresh(let again) = cache.lookup(a, now: 3, waiter: { _ in }) else { return XCTFail() }
        XCTAssertEqual(cache.counters.bytes, before + (gzip?.count ?? -1), "moving the entry keeps its charge")
        let second = cache.body(of: ResponseCache.Entry(key: a, stored: again), as: .gzip) { _ in
            compressions += 1
            return nil
        }
        XCTAssertEqual(second, gzip)
        XCTAssertEqual(compressions, 1, "the second ask is served from the entry")
        cache.purge(route: "users")
        XCTAssertEqual(cache.counters.bytes, 0)
    }

    func testAForwardingRouteIsPrivateAndVariesOnItsHeadersAndTheCoding() throws {
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let forwarding = route(cached: true, forwardHeaders: ["Authorization"])
        let headers = ["Authorization": "Bearer a", "Accept-Encoding": "br"]
        let (leader, _) = begin(forwarding, cache: cache, headers: headers)
        let miss = try answer(leader.fetchFinished(0, upstream(4000), seconds: 0))
        XCTAssertEqual(miss.header("Cache-Control"), "private, max-age=10")
        XCTAssertEqual(miss.headers.filter { $0.name == "Vary" }.map(\.value), ["Authorization, Accept-Encoding"])
        XCTAssertEqual(miss.header("Content-Encoding"), "br")

        let (uncached, _) = begin(route(cached: false, forwardHeaders: ["Authorization"]), cache: nil)
        let plain = try answer(uncached.fetchFinished(0, upstream(100), seconds: 0))
        XCTAssertEqual(plain.header("Cache-Control"), "private, no-cache")
        XCTAssertEqual(plain.header("Vary"), "Authorization", "too small to vary on the coding")
    }

    func testProblemsAndAdminAnswersAreNoStore() throws {
        let (failed, _) = begin(route(cached: false), cache: nil)
        let problem = try answer(failed.fetchFinished(0, .failure(.timeout, message: "slow"), seconds: 0))
        XCTAssertEqual(problem.status, 504)
        XCTAssertEqual(problem.header("Cache-Control"), "no-store")

        let settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(), compression: compression,
            admin: { _ in .json(200, Array(#"{"status":"live"}"#.utf8)) })
        let (_, admin) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/_reshape/live"),
            rules: ServingRules(RuleSet(upstreams: [:], routes: [], digest: "d")), draining: false,
            settings: settings, now: 0)
        XCTAssertEqual(try answer(admin).header("Cache-Control"), "no-store")
    }
}
