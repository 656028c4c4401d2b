import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// A request from dispatch to answer without sockets: the decision, the rendering of the
/// upstream's result, the metrics and the access-log line.
final class RequestLifecycleTests: XCTestCase {
    private let rules = ServingRules(
        RuleSet(
            upstreams: ["api": makeUpstream(query: [NameValue(name: "auth", value: "s3cret")], secrets: ["s3cret"])],
            routes: [makeRoute("users", "GET", "/users", upstreamPath: "/users.json", steps: [DropNonObjectsStep()])],
            digest: "d1"))

    private func settings(
        _ metrics: Metrics, endpoints: Endpoints = .all, canFetch: Bool = true, accessLog: Bool = true
    ) -> LifecycleSettings {
        LifecycleSettings(
            endpoints: endpoints, canFetch: canFetch, accessLog: accessLog, metrics: metrics,
            admin: { name in .json(200, Array("{\"admin\":\"\(name)\"}".utf8)) })
    }

    private func exposition(_ metrics: Metrics) -> String {
        Metrics.exposition([metrics], digest: "d1", reloads: 0, reloadFailures: 0)
    }

    func testAFetchIsRenderedRecordedAndLoggedWithItsDrops() throws {
        let metrics = Metrics()
        // The server counts the request in flight as it dispatches it.
        metrics.requestStarted()
        let (lifecycle, step) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users?x=1"), rules: rules,
            draining: false, settings: settings(metrics), now: 10)
        guard case .fetch(let orders, _) = step, let request = orders.first?.request else {
            return XCTFail("expected a fetch, got \(step)")
        }
        XCTAssertEqual(request.url, "https://api.example.com/users.json?auth=s3cret")
        let response = lifecycle.finishOnlyFetch(
            .response(
                UpstreamResponse(
                    status: 200, contentType: "application/json",
                    body: Array(#"[{"a":1},7,{"b":2}]"#.utf8))), seconds: 0.25)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.text, #"[{"a":1},{"b":2}]"#)
        XCTAssertEqual(response.headers.first { $0.name == "Reshape-Dropped" }?.value, "1")
        let finished = try XCTUnwrap(
            lifecycle.answered(response, now: 10.5, wallClockMilliseconds: 1_700_000_000_000).finished)
        XCTAssertTrue(exposition(metrics).contains("reshape_requests_in_flight 1"), "recorded by the server, not here")
        finished.record(in: metrics)
        let line = try XCTUnwrap(finished.accessLogLine).text
        XCTAssertTrue(line.contains(#""path":"/users""#) && !line.contains("x=1"), line)
        XCTAssertTrue(line.contains(#""route":"users""#) && line.contains(#""upstream_status":200"#), line)
        XCTAssertTrue(line.contains(#""duration_ms":500.000"#) && line.contains(#""upstream_ms":250.000"#), line)
        XCTAssertTrue(line.contains(#""pointer":"/1""#), line)
        let text = exposition(metrics)
        XCTAssertTrue(text.contains("reshape_requests_in_flight 0"), text)
        XCTAssertTrue(text.contains(#"reshape_requests_total{route="users",status="200"} 1"#), text)
        XCTAssertTrue(text.contains(#"reshape_dropped_elements_total{route="users",type="User"} 1"#), text)
    }

    func testAnUpstreamFailureNeverLeaksTheUpstreamsSecret() throws {
        let metrics = Metrics()
        let (lifecycle, step) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users"), rules: rules,
            draining: false, settings: settings(metrics), now: 0)
        guard case .fetch(let orders, _) = step, let order = orders.first else { return XCTFail("\(step)") }
        XCTAssertEqual(order.counted, FetchCount(route: "users", upstream: "api"))
        let failure = UpstreamResult.failure(.connect, message: "cannot reach https://api.example.com/?auth=s3cret")
        // The server counts the fetch's end as its order says, then reports it.
        order.counted.record(failure, seconds: 0.1, in: metrics)
        let response = lifecycle.finishOnlyFetch(failure, seconds: 0.1)
        XCTAssertEqual(response.status, 502)
        XCTAssertFalse(response.body.text.contains("s3cret"), response.body.text)
        let line = try XCTUnwrap(lifecycle.answered(response, now: 0.2, wallClockMilliseconds: 0).accessLogLine).text
        XCTAssertFalse(line.contains("s3cret"), line)
        XCTAssertTrue(line.contains(#""error":"upstream-unreachable""#) || line.contains("upstream-unreachable"), line)
        XCTAssertTrue(exposition(metrics).contains(#"reshape_upstream_errors_total{upstream="api",kind="connect"} 1"#))
    }

    func testWhileDrainingARouteIsAnswered503AndNeverFetched() {
        let (_, step) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users"), rules: rules,
            draining: true, settings: settings(Metrics()), now: 0)
        guard case .respond(let response, _) = step else { return XCTFail("a draining server must not fetch") }
        XCTAssertEqual(response.status, 503)
    }

    func testAdminAndErrorsAreAnsweredAtOnce() {
        let (_, admin) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/_reshape/live"), rules: rules,
            draining: false, settings: settings(Metrics()), now: 0)
        guard case .respond(let adminResponse, _) = admin else { return XCTFail() }
        XCTAssertEqual(adminResponse.body.text, #"{"admin":"live"}"#)
        let (lifecycle, missing) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/nowhere"), rules: rules,
            draining: false, settings: settings(Metrics()), now: 0)
        guard case .respond(let notFound, _) = missing else { return XCTFail() }
        XCTAssertEqual(notFound.status, 404)
        XCTAssertTrue(
            lifecycle.answered(notFound, now: 0, wallClockMilliseconds: 0).accessLogLine?.text.contains(
                #""error":"no-route""#)
                ?? false)
    }

    func testAListenerThatCannotFetchAnswers404AndACancelledRequestLeavesNothingInFlight() {
        let metrics = Metrics()
        let (_, step) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users"), rules: rules,
            draining: false, settings: settings(metrics, canFetch: false), now: 0)
        guard case .respond(let response, _) = step else {
            return XCTFail("a listener without upstreams must not fetch")
        }
        XCTAssertEqual(response.status, 404)
        let (cancelled, _) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users"), rules: rules,
            draining: false, settings: settings(metrics), now: 0)
        // The server counts each request in flight as it dispatches it, and records it finished.
        metrics.requestStarted()
        metrics.requestStarted()
        cancelled.cancelled().finished?.record(in: metrics)
        XCTAssertTrue(
            exposition(metrics).contains("reshape_requests_in_flight 1"), "the first request was never answered")
        XCTAssertNil(
            RequestLifecycle.begin(
                HTTPRequest(method: "GET", target: "/nowhere"), rules: rules, draining: false,
                settings: settings(metrics, accessLog: false), now: 0
            ).0
                .answered(response, now: 0, wallClockMilliseconds: 0).accessLogLine, "no access log line when it is off"
        )
    }

    func testAnAnswerTheClientHasIs304WithItsTagAndNoContent() throws {
        let body = Array(#"[{"a":1}]"#.utf8)
        func run(_ headers: [NameValue], _ result: UpstreamResult) -> HTTPResponse {
            let (lifecycle, _) = RequestLifecycle.begin(
                HTTPRequest(method: "GET", target: "/users", headers: headers), rules: rules,
                draining: false, settings: settings(Metrics()), now: 0)
            return lifecycle.finishOnlyFetch(result, seconds: 0)
        }
        let ok = UpstreamResult.response(UpstreamResponse(status: 200, contentType: "application/json", body: body))
        let first = run([], ok)
        let tag = try XCTUnwrap(first.headers.first { $0.name == "ETag" }?.value)
        let again = run([NameValue(name: "if-none-match", value: tag)], ok)
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.headers.first { $0.name == "ETag" }?.value, tag)
        XCTAssertNil(again.headers.first { $0.name == "Content-Type" })
        XCTAssertFalse(
            again.head(bodyBytes: 0, keepAlive: true).text.contains("Content-Length"), "a 304 has no length of its own")
        XCTAssertEqual(run([NameValue(name: "If-None-Match", value: #""other""#)], ok).status, 200)
        let changed = UpstreamResult.response(
            UpstreamResponse(status: 200, contentType: "application/json", body: Array(#"[{"a":2}]"#.utf8)))
        XCTAssertEqual(
            run([NameValue(name: "If-None-Match", value: tag)], changed).status, 200, "a changed answer is sent again")
        XCTAssertEqual(
            run([NameValue(name: "If-None-Match", value: "*")], .failure(.timeout, message: "slow")).status, 504,
            "only a 200 becomes 304")
    }
}

extension RequestLifecycle {
    /// The answer once the request's only fetch (id 0) finished with `result`.
    func finishOnlyFetch(_ result: UpstreamResult, seconds: Double) -> HTTPResponse {
        guard case .respond(let response, _) = fetchFinished(0, result, seconds: seconds) else {
            XCTFail("one fetch should decide the answer")
            return HTTPResponse(status: 0)
        }
        return response
    }
}
