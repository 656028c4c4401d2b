import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// Which redirects are followed: the hop count, the scheme, the hosts the rule names (and the
/// upstream's own origin), user info, and a write's method.
final class RedirectPolicyTests: XCTestCase {
    private let upstream = Upstream(
        name: "firebase", scheme: "https", host: "my-app.firebaseio.com", port: nil, basePath: "")

    private func policy(_ hosts: [String] = ["*.firebaseio.com"], max: Int = 3) throws -> RedirectPolicy {
        RedirectPolicy(
            rule: RedirectRule(hosts: try hosts.map { try HostPattern.parse($0).get() }, max: max), upstream: upstream)
    }

    private func location(
        _ host: String, port: Int = 443, scheme: String = "https", userInfo: Bool = false
    ) -> RedirectLocation {
        RedirectLocation(
            url: "\(scheme)://\(host):\(port)/users.json?ns=my-app", scheme: scheme, host: host, port: port,
            hasUserInfo: userInfo)
    }

    func testAnAllowedHostIsFollowedUpToMax() throws {
        let policy = try policy()
        let target = location("s-usc1c-nss-287.firebaseio.com")
        for hops in 0..<3 {
            XCTAssertEqual(
                policy.decide(status: 307, location: target, method: "GET", hopsDone: hops), .follow(url: target.url))
        }
        guard case .refuse(let reason) = policy.decide(status: 307, location: target, method: "GET", hopsDone: 3)
        else { return XCTFail("the fourth redirect must be refused") }
        XCTAssertTrue(reason.contains("more than 3"), reason)
    }

    func testTheUpstreamsOwnOriginIsAlwaysAllowed() throws {
        let own = location("my-app.firebaseio.com")
        XCTAssertEqual(
            try policy(["other.example.com"]).decide(status: 302, location: own, method: "GET", hopsDone: 0),
            .follow(url: own.url))
    }

    func testEverythingElseIsRefusedWithoutTheRestOfTheURL() throws {
        let policy = try policy()
        let refusals: [(RedirectLocation?, String)] = [
            (location("evil.example.com"), "https://evil.example.com:443"),
            (location("a.firebaseio.com", port: 8443), "https://a.firebaseio.com:8443"),
            (location("a.firebaseio.com", port: 80, scheme: "http"), "from https to http"),
            (location("a.firebaseio.com", userInfo: true), "user info"),
            (nil, "without a usable Location"),
        ]
        for (target, expected) in refusals {
            guard case .refuse(let reason) = policy.decide(status: 307, location: target, method: "GET", hopsDone: 0)
            else {
                XCTFail("\(String(describing: target)) must be refused")
                continue
            }
            XCTAssertTrue(reason.contains(expected), reason)
            XCTAssertFalse(reason.contains("ns=my-app"), "the path and query are never in the reason")
        }
    }

    func testAWriteFollowsOnly307And308() throws {
        let policy = try policy()
        let target = location("a.firebaseio.com")
        for status in [307, 308] {
            XCTAssertEqual(
                policy.decide(status: status, location: target, method: "POST", hopsDone: 0), .follow(url: target.url))
        }
        for status in [301, 302, 303] {
            guard case .refuse(let reason) = policy.decide(status: status, location: target, method: "PUT", hopsDone: 0)
            else { return XCTFail("PUT answered \(status) must be refused") }
            XCTAssertTrue(reason.contains("only redirected by 307 or 308"), reason)
            XCTAssertEqual(
                policy.decide(status: status, location: target, method: "GET", hopsDone: 0), .follow(url: target.url))
        }
    }

    func testOnlyTheFiveRedirectStatusesRedirect() {
        XCTAssertEqual((300...399).filter(RedirectPolicy.isRedirect), [301, 302, 303, 307, 308])
    }

    // MARK: - Through UpstreamHealth

    private func request(_ policy: RedirectPolicy?, timeout: Int = 1000) -> UpstreamRequest {
        var request = UpstreamRequest(
            method: "GET", url: "https://my-app.firebaseio.com/users.json", headers: [], body: nil,
            timeoutMilliseconds: timeout, connectTimeoutMilliseconds: timeout, maxBodyBytes: 1, upstreamName: "firebase"
        )
        request.retryable = true
        request.redirects = policy
        return request
    }

    func testAFetchFollowsWithinItsTimeAndCountsHops() throws {
        var health = UpstreamHealth()
        var fetch = UpstreamHealth.Fetch(request(try policy()), now: 0)
        XCTAssertEqual(health.begin(&fetch, now: 0), .attempt(timeoutMilliseconds: 1000))
        let target = location("a.firebaseio.com")
        XCTAssertEqual(
            health.attemptEnded(&fetch, .redirected(status: 307, location: target), now: 0.2),
            .follow(timeoutMilliseconds: 800))
        XCTAssertEqual(fetch.url, target.url)
        XCTAssertEqual(fetch.hops, 1)
        XCTAssertEqual(health.attemptEnded(&fetch, .answered(status: 200, retryAfter: nil), now: 0.3), .finish)
    }

    func testARedirectWithNoTimeLeftExpiresAndARefusedOneFails() throws {
        var health = UpstreamHealth()
        var late = UpstreamHealth.Fetch(request(try policy()), now: 0)
        _ = health.begin(&late, now: 0)
        guard
            case .expire = health.attemptEnded(
                &late, .redirected(status: 307, location: location("a.firebaseio.com")), now: 0.99)
        else { return XCTFail("no time was left to follow") }
        var refused = UpstreamHealth.Fetch(request(try policy()), now: 0)
        _ = health.begin(&refused, now: 0)
        guard
            case .refuseRedirect = health.attemptEnded(
                &refused, .redirected(status: 307, location: location("evil.example.com")), now: 0.1)
        else { return XCTFail("a host not allowed is refused") }
        XCTAssertEqual(refused.url, "https://my-app.firebaseio.com/users.json", "nothing was sent there")
    }

    func testWithoutARuleARedirectIsTheAnswer() {
        var health = UpstreamHealth()
        var fetch = UpstreamHealth.Fetch(request(nil), now: 0)
        _ = health.begin(&fetch, now: 0)
        XCTAssertEqual(
            health.attemptEnded(&fetch, .redirected(status: 307, location: location("a.firebaseio.com")), now: 0.1),
            .finish)
    }

    func testAFollowGoesThroughTheCircuit() throws {
        var health = UpstreamHealth()
        var request = request(try policy())
        request.circuit = CircuitRule(failures: 1, openForMilliseconds: 5000)
        var opener = UpstreamHealth.Fetch(request, now: 0)
        _ = health.begin(&opener, now: 0)
        var redirected = UpstreamHealth.Fetch(request, now: 0)
        _ = health.begin(&redirected, now: 0)
        XCTAssertEqual(health.attemptEnded(&opener, .timeout, now: 0.1), .finish)
        XCTAssertEqual(
            health.attemptEnded(
                &redirected, .redirected(status: 307, location: location("a.firebaseio.com")), now: 0.2),
            .reject(retryAfterSeconds: 5))
    }
}
