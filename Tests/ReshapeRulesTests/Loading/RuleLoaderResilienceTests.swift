import ReshapeRules
import XCTest

/// An upstream's `retry`, `circuit`, `max-idle` and `idle-timeout`, and a route's `idempotent`.
final class RuleLoaderResilienceTests: XCTestCase {
    func testTheIssueExampleLoads() throws {
        let text = """
            upstreams:
              firebase:
                url: https://my-app.firebaseio.com
                retry: { attempts: 2, on: [reset, connect-failure, 502, 503, 504], budget: 20% }
                circuit: { failures: 5, open-for: 10s }
                max-idle: 32
                idle-timeout: 60s
            """
        let firebase = try XCTUnwrap(loaded([("u.yaml", text)])?.upstreams["firebase"])
        XCTAssertEqual(
            firebase.retry,
            RetryRule(attempts: 2, onReset: true, onConnectFailure: true, statuses: [502, 503, 504], budgetPercent: 20))
        XCTAssertEqual(firebase.circuit, CircuitRule(failures: 5, openForMilliseconds: 10_000))
        XCTAssertEqual(firebase.idlePool, IdlePoolRule(maxIdle: 32, idleTimeoutMilliseconds: 60_000))
    }

    func testDefaultsWithoutTheKeys() throws {
        let api = try XCTUnwrap(loaded([("u.yaml", plainUpstream)])?.upstreams["api"])
        XCTAssertEqual(api.retry, .standard)
        XCTAssertEqual(api.retry.attempts, 1)
        XCTAssertTrue(api.retry.onReset && api.retry.onConnectFailure && api.retry.statuses.isEmpty)
        XCTAssertNil(api.circuit, "no circuit unless asked for")
        XCTAssertEqual(api.idlePool, .standard)
        let partial = """
            upstreams:
              api:
                url: http://127.0.0.1:8081
                retry: { on: [503] }
                circuit: {}
            """
        let tuned = try XCTUnwrap(loaded([("u.yaml", partial)])?.upstreams["api"])
        XCTAssertEqual(
            tuned.retry,
            RetryRule(attempts: 1, onReset: false, onConnectFailure: false, statuses: [503], budgetPercent: 20))
        XCTAssertEqual(tuned.circuit, CircuitRule(failures: 5, openForMilliseconds: 10_000))
    }

    func testEveryBadValueAndUnknownKeyIsLocated() {
        let text = """
            upstreams:
              bad:
                url: http://127.0.0.1:9
                retry: { attempts: 20, on: [reset, teapot, 302], budget: 20, extra: 1 }
                circuit: { failures: 0, open-for: soon, x: 1 }
                max-idle: -1
                idle-timeout: 3
              worse:
                url: http://127.0.0.1:9
                retry: 3
                circuit: on
            """
        let lines = diagnostics([("u.yaml", text)])
        assertDiagnostic(lines, at: "u.yaml:4:24", contains: "`attempts` must be a whole number from 0 to 10")
        assertDiagnostic(lines, at: "u.yaml:4:40", contains: "a retry condition is reset, connect-failure")
        assertDiagnostic(lines, at: "u.yaml:4:48", contains: "a retry condition is reset, connect-failure")
        assertDiagnostic(lines, at: "u.yaml:4:62", contains: "`budget` must be a share of requests")
        assertDiagnostic(lines, at: "u.yaml:4:73", contains: "unknown retry key 'extra'")
        assertDiagnostic(lines, at: "u.yaml:5:26", contains: "`failures` must be a whole number from 1 to 1000")
        assertDiagnostic(lines, at: "u.yaml:5:39", contains: "`open-for` must be a duration")
        assertDiagnostic(lines, at: "u.yaml:5:48", contains: "unknown circuit key 'x'")
        assertDiagnostic(lines, at: "u.yaml:6:15", contains: "`max-idle` must be a whole number from 0 to 1024")
        assertDiagnostic(lines, at: "u.yaml:7:19", contains: "`idle-timeout` must be a duration")
        assertDiagnostic(lines, at: "u.yaml:10:12", contains: "`retry` must be a mapping")
        assertDiagnostic(lines, at: "u.yaml:11:14", contains: "`circuit` must be a mapping")
    }

    func testIdempotentIsForPutAndDelete() throws {
        let upstream = "upstreams:\n  api: { url: \"http://127.0.0.1:8081\" }\n"
        let good =
            upstream + """
                routes:
                  - { name: d, request: "DELETE /d", upstream: api, path: /d.json, idempotent: true, transform: [] }
                  - { name: g, request: "GET /g", upstream: api, path: /g.json, transform: [] }
                """
        let routes = try XCTUnwrap(loaded([("r.yaml", good)])?.routes)
        XCTAssertEqual(routes.map(\.idempotent), [true, false])
        let bad =
            upstream + """
                routes:
                  - { name: p, request: "PATCH /p", upstream: api, path: /p.json, idempotent: true, transform: [] }
                  - { name: q, request: "PUT /q", upstream: api, path: /q.json, idempotent: maybe, transform: [] }
                """
        let lines = diagnostics([("r.yaml", bad)])
        assertDiagnostic(lines, at: "r.yaml:4:79", contains: "`idempotent` is for PUT and DELETE routes")
        assertDiagnostic(lines, at: "r.yaml:5:77", contains: "`idempotent` must be true or false")
    }
}
