import ReshapeCompression
import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// A fresh cached answer given at dispatch without a lifecycle (`CacheHit`): the same bytes
/// the lifecycle answers, its head kept with the entry while its ages last, and every request
/// that needs more than the entry left to the lifecycle.
final class CacheHitTests: XCTestCase {
    private let date = "Sun, 29 Nov 2026 03:00:00 GMT"

    private func route(cors: RouteCORS = .inherited, limit: [String] = []) -> Route {
        var route = Route(
            name: "users", method: "GET", path: clientTemplate("/users/{id}"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users/{id}.json"))],
            pipeline: Pipeline(steps: []), location: SourceLocation(file: "t.yaml", line: 1, column: 1))
        route.cache = CachePolicy(
            ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 10_000, staleIfErrorMilliseconds: 0)
        route.fingerprint = "f1"
        route.cors = cors
        route.limit = limit
        return route
    }

    private struct Setup {
        let rules: ServingRules
        let settings: LifecycleSettings
        let cache: ResponseCache
    }

    private func setup(
        _ route: Route, compression: AnswerCompression? = nil, accessLog: Bool = false, tracer: Tracer = Tracer()
    ) -> Setup {
        var ruleSet = RuleSet(upstreams: ["api": makeUpstream()], routes: [route], digest: "d")
        if !route.limit.isEmpty {
            for name in route.limit {
                ruleSet.limits[name] = LimitPolicy(
                    name: name, count: 100, intervalSeconds: 1, burst: 100, key: .clientAddress,
                    location: SourceLocation(file: "t.yaml", line: 2, column: 1))
            }
        }
        let cache = ResponseCache(capacityBytes: 1 << 20)
        var settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: accessLog, metrics: Metrics(), cache: cache, tracer: tracer,
            compression: compression, admin: { _ in HTTPResponse(status: 404) })
        if !route.limit.isEmpty { settings.limits = RateLimiter(table: LimitTable(capacity: 100)) }
        return Setup(rules: ServingRules(ruleSet), settings: settings, cache: cache)
    }

    private func request(_ headers: [String: String] = [:], method: String = "GET") -> HTTPRequest {
        HTTPRequest(
            method: method, target: "/users/u1",
            headers: headers.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) })
    }

    private func dispatch(
        _ setup: Setup, _ request: HTTPRequest, now: Double, draining: Bool = false, shedding: Bool = false
    ) -> RequestLifecycle.Dispatch {
        RequestLifecycle.dispatch(
            request, rules: setup.rules, draining: draining, shedding: shedding, settings: setup.settings, now: now,
            wallClockMilliseconds: { 1_800_000_000_000 }, cacheWaiter: { _ in })
    }

    /// Fetches the key once, through the lifecycle, so that it is cached.
    private func fill(_ setup: Setup, body: String = #"{"name":"Ada","bio":"\#(String(repeating: "x", count: 2000))"}"#)
        throws
    {
        guard case .lifecycle(let lifecycle, .fetch) = dispatch(setup, request(), now: 0) else {
            return XCTFail("the first request fetches")
        }
        let result = UpstreamResult.response(
            UpstreamResponse(status: 200, contentType: "application/json", body: Array(body.utf8)))
        var action = lifecycle.fetchFinished(0, result, seconds: 0.01)
        if case .exportSpan(_, let then) = action { action = then }
        guard case .respond(let miss, _) = action else {
            return XCTFail("the fetch answers")
        }
        XCTAssertEqual(miss.header("Reshape-Cache"), "miss")
    }

    /// The bytes the connection writes for an answer.
    private func wire(_ answer: RenderedAnswer, headOnly: Bool = false) -> String {
        String(decoding: answer.head(keepAlive: true, date: date) + (headOnly ? [] : answer.body), as: UTF8.self)
    }

    /// What the lifecycle answers the same request at the same time (`begin` never takes the
    /// direct path), as written.
    private func lifecycleAnswer(_ setup: Setup, _ request: HTTPRequest, now: Double) throws -> String {
        let (_, action) = RequestLifecycle.begin(
            request, rules: setup.rules, draining: false, settings: setup.settings, now: now, cacheWaiter: { _ in })
        guard case .respond(let response, _) = action else { throw Unexpected("not an answer: \(action)") }
        return wire(RenderedAnswer(response), headOnly: request.method == "HEAD")
    }

    private func cached(_ dispatched: RequestLifecycle.Dispatch) throws -> (RenderedAnswer, FinishedRequest) {
        guard case .cached(let answer, let finished) = dispatched else {
            throw Unexpected("taken by the lifecycle, not answered from the cache")
        }
        return (answer, finished)
    }

    /// A test's failure that a throwing helper reports (never a skip: a hit that stopped being
    /// answered directly must fail).
    private struct Unexpected: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func testAHitIsWhatTheLifecycleAnswersInEveryRepresentation() throws {
        let compression = AnswerCompression()
        let listed = CORSPolicy(origins: .listed([CORSOrigin(scheme: "https", host: .exact("app.example.com"))]))
        for (cors, headers) in [
            (RouteCORS.inherited, [:]),
            (.own(listed), ["Accept-Encoding": "gzip"]),
            (.inherited, ["Accept-Encoding": "gzip"]),
            (.inherited, ["Accept-Encoding": "br;q=1, gzip;q=0.5"]),
            (.own(CORSPolicy(origins: .any)), ["Origin": "https://a.example", "Accept-Encoding": "zstd"]),
            (
                .own(
                    CORSPolicy(
                        origins: .listed([CORSOrigin(scheme: "https", host: .exact("app.example.com"))]),
                        credentials: true)),
                ["Origin": "https://app.example.com"]
            ),
        ] {
            let setup = setup(route(cors: cors), compression: compression)
            try fill(setup)
            for method in ["GET", "HEAD"] {
                let request = request(headers, method: method)
                // Twice: the second hit writes the head the first one kept.
                for now in [3.2, 3.7] {
                    let (answer, finished) = try cached(dispatch(setup, request, now: now))
                    XCTAssertEqual(
                        wire(answer, headOnly: method == "HEAD"), try lifecycleAnswer(setup, request, now: now),
                        "\(method) \(headers) at \(now)")
                    XCTAssertEqual(finished.cacheStatus, "hit")
                    XCTAssertEqual(finished.route, "users")
                    XCTAssertEqual(finished.outcome, .answered(status: 200, seconds: 0))
                    if let coding = headers["Accept-Encoding"]?.split(separator: ";").first, method == "GET" {
                        XCTAssertTrue(wire(answer).contains("Content-Encoding: \(coding)"), "\(coding)")
                    }
                }
            }
        }
    }

    func testAListenerThatCompressesNothingAnswersAsTheLifecycleDoes() throws {
        let setup = setup(route(cors: .own(CORSPolicy(origins: .any))))
        try fill(setup)
        let request = request(["Accept-Encoding": "gzip", "Origin": "https://a.example"])
        for now in [1.5, 1.6] {
            let (answer, _) = try cached(dispatch(setup, request, now: now))
            XCTAssertEqual(wire(answer), try lifecycleAnswer(setup, request, now: now))
            XCTAssertFalse(wire(answer).contains("Content-Encoding"))
        }
    }

    /// Kept heads count in the byte bound; codings sent alike (too small to compress) share one.
    func testKeptHeadsAreChargedAndSharedWhereTheyAreTheSame() throws {
        let setup = setup(route(), compression: AnswerCompression())
        try fill(setup, body: #"{"name":"Ada"}"#)
        let before = setup.cache.counters.bytes
        let (identity, _) = try cached(dispatch(setup, request(), now: 1))
        let afterOne = setup.cache.counters.bytes
        XCTAssertEqual(afterOne - before, identity.lines.count + KeptHead.overhead)
        for coding in ["gzip", "br", "zstd"] {
            let (answer, _) = try cached(dispatch(setup, request(["Accept-Encoding": coding]), now: 1))
            XCTAssertEqual(answer.lines, identity.lines, "too small to compress: identity for \(coding) too")
        }
        let stored = try XCTUnwrap(setup.cache.fresh(try XCTUnwrap(key(setup)), now: 1))
        let heads = stored.keptHeads.withLock { $0 }
        XCTAssertEqual(heads.count, 4)
        let bases = Set(heads.map { $0.answer.lines.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } })
        XCTAssertEqual(bases.count, 1, "one copy of the lines for the four codings")
        // Each head is counted whole, shared lines or not (never less than what is held).
        let afterFour = setup.cache.counters.bytes
        XCTAssertEqual(afterFour - afterOne, 3 * (identity.lines.count + KeptHead.overhead))
        // The next second's head replaces the identity one: the bound moves by the ages' digits.
        _ = try cached(dispatch(setup, request(), now: 2.5))
        XCTAssertLessThanOrEqual(abs(setup.cache.counters.bytes - afterFour), 2)
    }

    private func key(_ setup: Setup) -> CacheKey? {
        guard case .route(let route, let parameters) = setup.rules.decide(request()) else { return nil }
        return CacheKey.of(route: route.route, parameters: parameters, request: request())
    }

    func testAKeptHeadLastsWhileItsAgesDo() throws {
        let setup = setup(route())
        try fill(setup)
        let (first, _) = try cached(dispatch(setup, request(), now: 1.1))
        let (same, _) = try cached(dispatch(setup, request(), now: 1.9))
        XCTAssertEqual(first.lines, same.lines)
        XCTAssertTrue(wire(first).contains("Age: 1\r\n"))
        XCTAssertTrue(wire(first).contains("max-age=8"))
        let (later, _) = try cached(dispatch(setup, request(), now: 2.05))
        XCTAssertTrue(wire(later).contains("Age: 2\r\n"), wire(later))
        XCTAssertTrue(wire(later).contains("max-age=7"), wire(later))
        XCTAssertEqual(setup.cache.counters.hits, 3 + 0)
    }

    func testAnEchoedOriginIsNeverKept() throws {
        let policy = CORSPolicy(
            origins: .listed([CORSOrigin(scheme: "https", host: .exact("app.example.com"))]), credentials: true)
        let setup = setup(route(cors: .own(policy)))
        try fill(setup)
        let (allowed, _) = try cached(dispatch(setup, request(["Origin": "https://app.example.com"]), now: 1))
        XCTAssertTrue(wire(allowed).contains("Access-Control-Allow-Origin: https://app.example.com\r\n"))
        let (other, _) = try cached(dispatch(setup, request(["Origin": "https://other.example"]), now: 1))
        XCTAssertFalse(wire(other).contains("Access-Control-Allow-Origin"), wire(other))
        XCTAssertTrue(wire(other).contains("Vary: Origin\r\n"), wire(other))
    }

    func testWhatNeedsMoreThanTheEntryGoesToTheLifecycle() throws {
        let setup = setup(route())
        try fill(setup)
        let taken: [(String, RequestLifecycle.Dispatch)] = [
            ("If-None-Match", dispatch(setup, request(["If-None-Match": "\"x\""]), now: 1)),
            ("a POST", dispatch(setup, request(method: "POST"), now: 1)),
            ("draining", dispatch(setup, request(), now: 1, draining: true)),
            ("shedding", dispatch(setup, request(), now: 1, shedding: true)),
            ("stale", dispatch(setup, request(), now: 12)),
        ]
        for (what, dispatched) in taken {
            guard case .lifecycle = dispatched else { return XCTFail("\(what): answered without the lifecycle") }
        }
        let limited = self.setup(route(limit: ["per-address"]))
        guard case .lifecycle(let first, .fetch) = dispatch(limited, request(), now: 0) else { return XCTFail() }
        _ = first.fetchFinished(
            0, .response(UpstreamResponse(status: 200, contentType: "application/json", body: Array("{}".utf8))),
            seconds: 0)
        guard case .lifecycle(_, .respond(let response, _)) = dispatch(limited, request(), now: 1) else {
            return XCTFail("a limited route's hit is the lifecycle's")
        }
        XCTAssertEqual(response.header("Reshape-Cache"), "hit")
        XCTAssertNotNil(response.header("RateLimit"))
    }

    func testWhileSpansAreExportedTheLifecycleAnswers() throws {
        let tracer = Tracer(random: TraceRandom(seed: 1), sampleRatio: 1, unixOffsetSeconds: 0, export: { _ in })
        let setup = setup(route(), tracer: tracer)
        try fill(setup)
        guard case .lifecycle = dispatch(setup, request(), now: 1) else { return XCTFail("a hit whose span is due") }
    }

    func testAHitIsLoggedAsTheLifecycleLogsIt() throws {
        let setup = setup(route(), accessLog: true, tracer: Tracer(random: TraceRandom(seed: 3)))
        try fill(setup)
        let (_, finished) = try cached(
            dispatch(
                setup,
                request(["traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"]), now: 1))
        let line = try JSON.parse(try XCTUnwrap(finished.accessLogLine))
        XCTAssertEqual(line["route"], .string("users"))
        XCTAssertEqual(line["path"], .string("/users/u1"))
        XCTAssertEqual(line["status"], .number(JSONNumber(200)))
        XCTAssertEqual(line["trace_id"], .string("0af7651916cd43dd8448eb211c80319c"))
    }
}
