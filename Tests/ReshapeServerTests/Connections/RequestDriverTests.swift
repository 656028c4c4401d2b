import CLibUV
import Glibc
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy
@testable import ReshapeServer

/// The driver on a real libuv loop, with an owner that records what it is handed: what each
/// lifecycle action becomes (an answer passed on, a refresh handed over, a fetch started,
/// timed out and stopped), and that nothing reaches a request once it is gone.
final class RequestDriverTests: XCTestCase {
    /// A loop of its own with an upstream client on it; it keeps the refreshes it is handed.
    private final class Owner: ConnectionOwner {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let shared: SharedState
        let lifecycleSettings: LifecycleSettings
        private(set) var upstream: UpstreamClient?
        let liveHub: LiveHub? = nil
        let keyStore: KeyStore? = nil
        let shedding = false
        let handleSlab = BlockSlab(byteCount: ConnectionHandles.byteCount)
        private(set) var refreshes: [RequestLifecycle] = []

        init(rules: ServingRules, cache: ResponseCache? = nil) {
            shared = SharedState(configuration: ServerConfiguration(rulesPath: "-", cacheBytes: 0), rules: rules)
            lifecycleSettings = LifecycleSettings(
                endpoints: .routes, canFetch: true, accessLog: false,
                metrics: shared.metrics[0], cache: cache,
                admin: { _ in HTTPResponse(status: 404) })
            uv_loop_init(loop)
            upstream = UpstreamClient(loop: loop, metrics: shared.metrics[0])
        }

        var metrics: Metrics { shared.metrics[0] }
        let answerDate = AnswerDate()
        var mailbox: LoopMailbox? { nil }
        var sharedCache: RedisClient? { nil }
        var sharedLimits: RedisClient? { nil }
        func fillReadBuffer(_ buffer: UnsafeMutablePointer<uv_buf_t>?) {}
        func forget(_ connection: ClientConnection) -> Bool { true }
        func runInBackground(_ refresh: RequestLifecycle) { refreshes.append(refresh) }

        /// Runs the loop until `done` or until `seconds` have passed (a timer wakes it then).
        func run(seconds: Double, until done: () -> Bool = { false }) {
            let wake = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
            uv_timer_init(loop, wake)
            uv_timer_start(wake, { _ in }, UInt64(seconds * 1000), 0)
            let deadline = Clock.monotonicSeconds() + seconds
            while !done(), Clock.monotonicSeconds() < deadline { uv_run(loop, UV_RUN_ONCE) }
            uv_close(reshape_timer_handle(wake)) { $0?.deallocate() }
        }

        /// Closes the upstream client (and its connections), then the loop.
        func close() {
            upstream?.close()
            upstream = nil
            uv_run(loop, UV_RUN_DEFAULT)
            uv_loop_close(loop)
            loop.deallocate()
        }
    }

    /// A port on which connections are accepted (by the kernel's backlog) and never answered.
    private final class SilentPort {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        private(set) var port = 0

        init() throws {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw HarnessError("cannot listen on a loopback port") }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { Glibc.close(fd) }
    }

    /// One route: a GET of `/slow` from an upstream that never answers, timed out after 100 ms.
    private func slowRules(_ silent: SilentPort) -> ServingRules {
        let upstream = Upstream(name: "silent", scheme: "http", host: "127.0.0.1", port: silent.port, basePath: "")
        let slow = route(
            "slow", "GET", "/slow", fetches: [fetch("", "/never", upstream: "silent")],
            timeoutMilliseconds: 100)
        return ServingRules(RuleSet(upstreams: ["silent": upstream], routes: [slow], digest: "d"))
    }

    private func begin(_ target: String, _ owner: Owner, now: Double = Clock.monotonicSeconds())
        -> (RequestLifecycle, RequestLifecycle.Action)
    {
        // libuv times a route timer from the loop's clock, which stands still while the loop
        // does not run (as here, between tests): without this, it could be due at once.
        uv_update_time(owner.loop)
        return RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: target), rules: owner.shared.rules, draining: false,
            settings: owner.lifecycleSettings, now: now, cacheWaiter: { _ in })
    }

    func testTheRouteTimeoutAnswers504AndStopsTheFetch() throws {
        let silent = try SilentPort()
        let owner = Owner(rules: slowRules(silent))
        defer { owner.close() }
        var answers: [(id: Int, status: Int, state: String)] = []
        var lifecycle: RequestLifecycle?
        let driver = RequestDriver(owner: owner) { id, response, _ in
            answers.append((id, response.status, lifecycle?.stateName ?? ""))
        }
        let (begun, action) = begin("/slow", owner)
        lifecycle = begun
        guard case .fetch = action else { return XCTFail("\(action)") }
        driver.run(7, begun, action)
        XCTAssertFalse(driver.isIdle)
        owner.run(seconds: 5) { !answers.isEmpty }
        XCTAssertEqual(answers.map(\.id), [7])
        XCTAssertEqual(answers.first?.status, 504)
        XCTAssertEqual(
            answers.first?.state, "answered", "the answer is recorded before it is passed on (and may be read)")
        XCTAssertEqual(begun.fetchesInFlight, [])
        XCTAssertTrue(driver.isIdle)
        owner.run(seconds: 0.2)
        XCTAssertEqual(answers.count, 1, "the stopped fetch never reports")
    }

    func testACancelledRequestStopsItsFetchAndTimerAndIsNeverAnswered() throws {
        let silent = try SilentPort()
        let owner = Owner(rules: slowRules(silent))
        defer { owner.close() }
        var answers = 0
        let driver = RequestDriver(owner: owner) { _, _, _ in answers += 1 }
        let (lifecycle, action) = begin("/slow", owner)
        driver.run(1, lifecycle, action)
        XCTAssertEqual(lifecycle.fetchesInFlight, [0])
        driver.cancel(1)
        XCTAssertEqual(lifecycle.stateName, "cancelled")
        XCTAssertTrue(driver.isIdle)
        owner.run(seconds: 0.3)
        XCTAssertEqual(answers, 0, "neither the route timer (100 ms) nor the fetch reaches a cancelled request")
    }

    func testAFetchIsCountedAsItsOrderSaysAndTheRequestRecordedBeforeItIsPassedOn() {
        let api = Upstream(name: "api", scheme: "http", host: "127.0.0.1", port: 9, basePath: "")
        let users = route("users", "GET", "/users", fetches: [fetch("", "/users.json", upstream: "api")])
        let owner = Owner(rules: ServingRules(RuleSet(upstreams: ["api": api], routes: [users], digest: "d")))
        defer { owner.close() }
        var answers: [(status: Int, metrics: String)] = []
        let driver = RequestDriver(owner: owner) { _, response, _ in
            answers.append(
                (response.status, Metrics.exposition([owner.metrics], digest: "d", reloads: 0, reloadFailures: 0)))
        }
        let (lifecycle, action) = begin("/users", owner)
        driver.run(1, lifecycle, action)
        owner.run(seconds: 5) { !answers.isEmpty }
        XCTAssertEqual(answers.first?.status, 502, "nothing listens on port 9")
        let text = answers.first?.metrics ?? ""
        XCTAssertTrue(text.contains(#"reshape_upstream_errors_total{upstream="api",kind="connect"} 1"#), text)
        XCTAssertTrue(text.contains(#"reshape_upstream_fetches_total{route="users",upstream="api"} 1"#), text)
        XCTAssertTrue(text.contains(#"reshape_requests_total{route="users",status="502"} 1"#), text)
    }

    func testAStaleAnswerIsPassedOnAndItsRefreshHandedToTheOwner() {
        var cached = route("users", "GET", "/users", fetches: [fetch("", "/users.json", upstream: "api")])
        cached.cache = CachePolicy(ttlMilliseconds: 10_000, staleWhileRevalidateMilliseconds: 10_000)
        cached.fingerprint = "f1"
        let api = Upstream(name: "api", scheme: "http", host: "127.0.0.1", port: 9, basePath: "")
        let cache = ResponseCache(capacityBytes: 1 << 20)
        let rules = ServingRules(RuleSet(upstreams: ["api": api], routes: [cached], digest: "d"))
        let owner = Owner(rules: rules, cache: cache)
        defer { owner.close() }
        // An answer kept at 0: fresh for 10 seconds, then stale for 10 more.
        let (first, _) = begin("/users", owner, now: 0)
        _ = first.fetchFinished(
            0,
            .response(
                UpstreamResponse(
                    status: 200, contentType: "application/json",
                    body: Array("[]".utf8))), seconds: 0)
        var answers: [HTTPResponse] = []
        let driver = RequestDriver(owner: owner) { _, response, _ in answers.append(response) }
        let (stale, action) = begin("/users", owner, now: 12)
        guard case .respondAndRefresh = action else { return XCTFail("\(action)") }
        driver.run(3, stale, action)
        XCTAssertEqual(answers.first?.headers.first { $0.name == "Reshape-Cache" }?.value, "stale")
        XCTAssertTrue(driver.isIdle)
        XCTAssertEqual(owner.refreshes.map(\.stateName), ["refreshPending"], "the owner starts the refresh")
        owner.refreshes.first.map(RequestDriver.drop)
    }
}
