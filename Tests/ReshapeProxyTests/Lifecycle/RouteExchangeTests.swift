import ReshapeJSON
import ReshapeRules
import ReshapeSchema
import XCTest

@testable import ReshapeProxy

/// Fan-out, follow-up fetches, client bodies, forwarded headers and upstream verdicts, as the
/// lifecycle decides them without sockets: every fetch it asks for is answered by hand.
final class RouteExchangeTests: XCTestCase {
    private let location = SourceLocation(file: "test.yaml", line: 1, column: 1)

    private func rules(_ routes: [Route]) -> ServingRules {
        ServingRules(
            RuleSet(
                upstreams: [
                    "api": makeUpstream(query: [NameValue(name: "auth", value: "s3cret")], secrets: ["s3cret"]),
                    "people": makeUpstream("people", host: "people.example.com"),
                ],
                routes: routes, digest: "d"))
    }

    private func begin(_ route: Route, _ request: HTTPRequest, metrics: Metrics = Metrics()) -> (
        RequestLifecycle, RequestLifecycle.Action
    ) {
        RequestLifecycle.begin(
            request, rules: rules([route]), draining: false,
            settings: LifecycleSettings(
                endpoints: .all, canFetch: true, accessLog: true, metrics: metrics,
                admin: { _ in HTTPResponse(status: 404) }),
            now: 0)
    }

    private func ok(_ json: String, status: Int = 200) -> UpstreamResult {
        .response(UpstreamResponse(status: status, contentType: "application/json", body: Array(json.utf8)))
    }

    private func orders(_ step: RequestLifecycle.Action, file: StaticString = #filePath, line: UInt = #line)
        -> [FetchOrder]
    {
        guard case .fetch(let orders, _) = step else {
            XCTFail("expected fetches, got \(step)", file: file, line: line)
            return []
        }
        return orders
    }

    /// The answer, and the ids of the fetches it cancels.
    private func response(_ step: RequestLifecycle.Action, file: StaticString = #filePath, line: UInt = #line) -> (
        HTTPResponse, [Int]
    ) {
        guard case .respond(let response, let settlement) = step else {
            XCTFail("expected an answer, got \(step)", file: file, line: line)
            return (HTTPResponse(status: 0), [])
        }
        return (response, settlement.cancel.map(\.id))
    }

    private func member(_ response: HTTPResponse, _ key: String) -> JSON? {
        guard case .object(let object)? = try? JSON.parse(response.body) else { return nil }
        return object[key]
    }

    // MARK: - Fan-out

    private var profile: Route {
        Route(
            name: "profile", method: "GET", path: clientTemplate("/profile/{id}"),
            fetches: [
                FetchRule(name: "user", upstream: "api", path: upstreamTemplate("/users/{id}.json")),
                FetchRule(
                    name: "devices", upstream: "people", path: upstreamTemplate("/devices/{id}.json"), optional: true),
            ],
            pipeline: Pipeline(steps: []), location: location)
    }

    func testFanOutStartsEveryFetchAtOnceAndBuildsTheInputInFetchOrder() {
        let (lifecycle, step) = begin(profile, HTTPRequest(method: "GET", target: "/profile/u1"))
        let started = orders(step)
        XCTAssertEqual(
            started.map(\.request.url),
            [
                "https://api.example.com/users/u1.json?auth=s3cret",
                "https://people.example.com/devices/u1.json",
            ])
        XCTAssertEqual(lifecycle.fetchesInFlight, [0, 1])
        // The second answers first; nothing is decided until both are in.
        guard case .wait = lifecycle.fetchFinished(1, ok(#"{"d1":{"os":"ios"}}"#), seconds: 0.1) else {
            return XCTFail()
        }
        let (answer, cancel) = response(lifecycle.fetchFinished(0, ok(#"{"name":"Ada"}"#), seconds: 0.2))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body.text, #"{"user":{"name":"Ada"},"devices":{"d1":{"os":"ios"}}}"#)
        XCTAssertEqual(cancel, [])
        let line = lifecycle.answered(answer, now: 1, wallClockMilliseconds: 0).accessLogLine?.text ?? ""
        XCTAssertTrue(line.contains(#""fetches":2"#), line)
    }

    func testARequiredFetchThatFailsAnswers502NamingItAndCancelsTheOthers() {
        let (lifecycle, step) = begin(profile, HTTPRequest(method: "GET", target: "/profile/u1"))
        _ = orders(step)
        let (answer, cancel) = response(
            lifecycle.fetchFinished(
                0, .failure(.connect, message: "refused by https://api.example.com/?auth=s3cret"),
                seconds: 0.1))
        XCTAssertEqual(answer.status, 502)
        XCTAssertEqual(member(answer, "code"), .string("fetch-failed"))
        XCTAssertEqual(member(answer, "fetch"), .string("user"))
        XCTAssertEqual(member(answer, "reason"), .string("upstream-unreachable"))
        XCTAssertFalse(answer.body.text.contains("s3cret"), answer.body.text)
        XCTAssertEqual(cancel, [1], "the devices fetch still in flight is cancelled")
        XCTAssertEqual(lifecycle.fetchesInFlight, [])
    }

    func testAnOptionalFetchThatFailsIsNullAndARequired404Stays404() {
        let (lifecycle, _) = begin(profile, HTTPRequest(method: "GET", target: "/profile/u1"))
        _ = lifecycle.fetchFinished(1, ok("oops", status: 500), seconds: 0)
        let (answer, _) = response(lifecycle.fetchFinished(0, ok(#"{"name":"Ada"}"#), seconds: 0))
        XCTAssertEqual(answer.body.text, #"{"user":{"name":"Ada"},"devices":null}"#)

        let (missing, _) = begin(profile, HTTPRequest(method: "GET", target: "/profile/u2"))
        let (notFound, cancel) = response(missing.fetchFinished(0, ok("null", status: 404), seconds: 0))
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(member(notFound, "code"), .string("upstream-not-found"))
        XCTAssertEqual(member(notFound, "fetch"), .string("user"))
        XCTAssertEqual(cancel, [1])
    }

    func testTheRouteTimeoutAnswers504AndCancelsWhatIsInFlight() {
        var route = profile
        route.timeoutMilliseconds = 250
        let (lifecycle, step) = begin(route, HTTPRequest(method: "GET", target: "/profile/u1"))
        guard case .fetch(_, armTimer: 250) = step else { return XCTFail("the route timer is armed: \(step)") }
        _ = lifecycle.fetchFinished(1, ok("{}"), seconds: 0)
        let (answer, cancel) = response(lifecycle.timedOut())
        XCTAssertEqual(answer.status, 504)
        XCTAssertEqual(member(answer, "code"), .string("route-timeout"))
        XCTAssertEqual(cancel, [0])
        XCTAssertEqual(lifecycle.fetchesInFlight, [], "a cancelled fetch never reports: the driver drops the request")
    }

    // MARK: - Follow-up fetches

    private func posts(missing: MissingPolicy = .null, concurrency: Int = 2, maxFetches: Int = 100) -> Route {
        let expand = ExpandRule(
            key: "authorId",
            fetch: FetchRule(name: "author", upstream: "people", path: upstreamTemplate("/users/{value}.json")),
            member: "author", concurrency: concurrency, missing: missing, maxFetches: maxFetches)
        return Route(
            name: "posts", method: "GET", path: clientTemplate("/posts"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/posts.json"))],
            pipeline: Pipeline(steps: []), stages: [ExpandStage(expand: expand, then: Pipeline(steps: []))],
            location: location)
    }

    private let fourPosts =
        #"[{"id":1,"authorId":"a"},{"id":2,"authorId":"b"},{"id":3,"authorId":"a"},{"id":4,"authorId":"c"},{"id":5}]"#

    func testFollowUpsAreDeduplicatedBoundedAndMerged() {
        let (lifecycle, step) = begin(posts(), HTTPRequest(method: "GET", target: "/posts"))
        XCTAssertEqual(orders(step).count, 1)
        let first = orders(lifecycle.fetchFinished(0, ok(fourPosts), seconds: 0))
        XCTAssertEqual(
            first.map(\.request.url),
            ["https://people.example.com/users/a.json", "https://people.example.com/users/b.json"],
            "two distinct values at once: the concurrency bound")
        XCTAssertEqual(lifecycle.fetchesInFlight.count, 2)
        let third = orders(lifecycle.fetchFinished(first[1].id, ok(#"{"name":"Bo"}"#), seconds: 0))
        XCTAssertEqual(
            third.map(\.request.url), ["https://people.example.com/users/c.json"], "'a' is fetched once for two posts")
        guard case .wait = lifecycle.fetchFinished(third[0].id, ok("null"), seconds: 0) else { return XCTFail() }
        let (answer, _) = response(lifecycle.fetchFinished(first[0].id, ok(#"{"name":"Al"}"#), seconds: 0))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            answer.body.text,
            #"[{"id":1,"authorId":"a","author":{"name":"Al"}},{"id":2,"authorId":"b","author":{"name":"Bo"}},"#
                + #"{"id":3,"authorId":"a","author":{"name":"Al"}},{"id":4,"authorId":"c","author":null},{"id":5,"author":null}]"#
        )
        XCTAssertTrue(
            lifecycle.answered(answer, now: 0, wallClockMilliseconds: 0).accessLogLine?.text.contains(#""fetches":4"#)
                ?? false)
    }

    private func runPosts(_ route: Route, _ answers: [String: UpstreamResult]) -> HTTPResponse {
        let (lifecycle, _) = begin(route, HTTPRequest(method: "GET", target: "/posts"))
        var step = lifecycle.fetchFinished(0, ok(fourPosts), seconds: 0)
        var pending: [FetchOrder] = []
        while true {
            if case .fetch(let orders, _) = step { pending += orders } else if case .respond = step { break }
            guard !pending.isEmpty else { break }
            let order = pending.removeFirst()
            let value = String(order.request.url.split(separator: "/").last!.dropLast(5))
            step = lifecycle.fetchFinished(order.id, answers[value] ?? ok("x", status: 404), seconds: 0)
        }
        return response(step).0
    }

    func testMissingFollowUpsAreNullDroppedOrFatalAsTheRuleSays() {
        let answers = ["a": ok(#"{"name":"Al"}"#), "b": ok(#"{"name":"Bo"}"#)]
        let dropped = runPosts(posts(missing: .drop), answers)
        XCTAssertEqual(
            dropped.body.text,
            #"[{"id":1,"authorId":"a","author":{"name":"Al"}},{"id":2,"authorId":"b","author":{"name":"Bo"}},"#
                + #"{"id":3,"authorId":"a","author":{"name":"Al"}}]"#)
        XCTAssertEqual(dropped.headers.first { $0.name == "Reshape-Dropped" }?.value, "2")
        let failed = runPosts(posts(missing: .fail), answers)
        XCTAssertEqual(failed.status, 502)
        XCTAssertEqual(member(failed, "code"), .string("follow-up-missing"))
        XCTAssertEqual(member(failed, "pointer"), .string("/3"))
    }

    func testAFollowUpThatFailsOtherwiseFailsTheResponse() {
        let failed = runPosts(posts(concurrency: 8), ["a": ok(#"{"name":"Al"}"#), "b": ok("{}", status: 503)])
        XCTAssertEqual(failed.status, 502)
        XCTAssertEqual(member(failed, "code"), .string("fetch-failed"))
        XCTAssertEqual(member(failed, "fetch"), .string("author"))
        XCTAssertEqual(member(failed, "reason"), .string("upstream-status"))
        let invalid = runPosts(posts(concurrency: 8), ["a": ok("{nope")])
        XCTAssertEqual(member(invalid, "reason"), .string("upstream-invalid-json"))
    }

    func testMaxFetchesCapsTheFollowUpsOfOneRequest() {
        let capped = runPosts(posts(maxFetches: 2), [:])
        XCTAssertEqual(capped.status, 502)
        XCTAssertEqual(member(capped, "code"), .string("too-many-fetches"))
    }

    func testAValueThatIsNotAPathSegmentIsNeverFetched() {
        let (lifecycle, _) = begin(posts(), HTTPRequest(method: "GET", target: "/posts"))
        let (answer, _) = response(lifecycle.fetchFinished(0, ok(#"[{"authorId":".."}]"#), seconds: 0))
        XCTAssertEqual(answer.body.text, #"[{"authorId":"..","author":null}]"#)
    }

    // MARK: - Client bodies

    private func createUser(encoding: BodyEncoding = .json, status: Int = 201) throws -> Route {
        let types = try SchemaSet(types: [
            (
                name: "NewUser",
                schema: try JSON.parse(
                    Array(
                        #"{"type":"object","required":["name"],"properties":{"name":{"type":"string","minLength":1},"age":{"type":"integer"}}}"#
                            .utf8))
            )
        ])
        return Route(
            name: "create-user", method: "POST", path: clientTemplate("/users"),
            fetches: [FetchRule(name: "", upstream: "api", path: upstreamTemplate("/users.json"))],
            forwardHeaders: ["Authorization", "x-request-id", "Connection", "Host"],
            headers: [HeaderRule(name: "X-Client", value: "reshape")],
            body: BodyRule(typeName: "NewUser", validator: types.validator(named: "NewUser"), encoding: encoding),
            pipeline: Pipeline(steps: []), location: location)
    }

    private func post(_ body: String, contentType: String? = "application/json", headers: [NameValue] = [])
        -> HTTPRequest
    {
        HTTPRequest(
            method: "POST", target: "/users",
            headers: (contentType.map { [NameValue(name: "Content-Type", value: $0)] } ?? []) + headers,
            body: Array(body.utf8))
    }

    func testABodyIsCheckedBeforeAnythingIsFetched() throws {
        let route = try createUser()
        let (wrongType, _) = response(begin(route, post(#"{"name":"A"}"#, contentType: "text/plain")).1)
        XCTAssertEqual(wrongType.status, 415)
        let (broken, _) = response(begin(route, post("{\n  \"name\": }")).1)
        XCTAssertEqual(broken.status, 400)
        XCTAssertEqual(member(broken, "code"), .string("invalid-json"))
        XCTAssertEqual(member(broken, "line"), .number(JSONNumber(2)))
        let (invalid, _) = response(begin(route, post(#"{"name":"","age":1.5}"#)).1)
        XCTAssertEqual(invalid.status, 422)
        XCTAssertEqual(member(invalid, "code"), .string("invalid-body"))
        guard case .array(let errors) = member(invalid, "errors") else { return XCTFail(invalid.body.text) }
        let pointers = errors.compactMap { error -> String? in
            if case .object(let object) = error, case .string(let pointer)? = object["pointer"] { return pointer }
            return nil
        }
        XCTAssertEqual(Set(pointers), ["/name", "/age"])
        let (refusedLifecycle, refusedStep) = begin(route, post("{}", contentType: nil))
        let line =
            refusedLifecycle.answered(response(refusedStep).0, now: 0, wallClockMilliseconds: 0).accessLogLine?.text
            ?? ""
        XCTAssertTrue(line.contains(#""error":"unsupported-media-type""#), "the refusal is in the access log: \(line)")
        let plain = makeRoute("users", "GET", "/users")
        let (refused, _) = response(
            begin(plain, HTTPRequest(method: "GET", target: "/users", body: Array("{}".utf8))).1)
        XCTAssertEqual(refused.status, 415, "a route without `body:` takes none")
    }

    func testAValidBodyIsSentWithItsTypeAndTheListedHeadersOnly() throws {
        let headers = [
            NameValue(name: "authorization", value: "Bearer user-token"), NameValue(name: "X-Request-Id", value: "r-1"),
            NameValue(name: "Cookie", value: "sid=1"), NameValue(name: "Connection", value: "keep-alive"),
            NameValue(name: "Host", value: "evil.example"),
        ]
        let (lifecycle, step) = begin(try createUser(), post(#"{"name":"Ada","age":36}"#, headers: headers))
        let request = try XCTUnwrap(orders(step).first?.request)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.body.map { String(decoding: $0, as: UTF8.self) }, #"{"name":"Ada","age":36}"#)
        let sent = (request.headers + request.traceHeaders).map { "\($0.name): \($0.value)" }
        XCTAssertEqual(
            sent,
            [
                "Accept: application/json", "authorization: Bearer user-token", "X-Request-Id: r-1",
                "X-Client: reshape", "Content-Type: application/json",
                "traceparent: \(try XCTUnwrap(request.trace).traceparent)",
            ])
        XCTAssertTrue(request.secrets.contains("Bearer user-token"))
        let (answer, _) = response(lifecycle.fetchFinished(0, ok(#"{"name":"-Nx1"}"#, status: 201), seconds: 0))
        XCTAssertEqual(answer.status, 201, "a write's status is kept")
        XCTAssertNil(answer.headers.first { $0.name == "ETag" })
        let log = lifecycle.answered(
            HTTPResponse(status: 502, body: Array("Bearer user-token".utf8)), now: 0, wallClockMilliseconds: 0
        ).accessLogLine
        XCTAssertFalse(log?.text.contains("user-token") ?? true)
    }

    func testAForwardedHeaderReplacesTheUpstreamsEvenWhenTheClientSendsNone() throws {
        let route = Route(
            name: "mine", method: "GET", path: clientTemplate("/mine"),
            fetches: [FetchRule(name: "", upstream: "operator", path: upstreamTemplate("/mine.json"))],
            forwardHeaders: ["Authorization"], pipeline: Pipeline(steps: []), location: location)
        let rules = ServingRules(
            RuleSet(
                upstreams: [
                    "operator": makeUpstream(
                        "operator", headers: [NameValue(name: "Authorization", value: "Bearer operator")],
                        secrets: ["Bearer operator"])
                ],
                routes: [route], digest: "d"))
        func sent(_ headers: [NameValue]) throws -> [String] {
            let step = RequestLifecycle.begin(
                HTTPRequest(method: "GET", target: "/mine", headers: headers), rules: rules, draining: false,
                settings: LifecycleSettings(
                    endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(),
                    admin: { _ in HTTPResponse(status: 404) }), now: 0
            ).1
            return try XCTUnwrap(orders(step).first).request.headers.filter { $0.name.lowercased() == "authorization" }
                .map(\.value)
        }
        XCTAssertEqual(try sent([NameValue(name: "Authorization", value: "Bearer user")]), ["Bearer user"])
        XCTAssertEqual(
            try sent([]), [], "no fallback to the operator's credentials on a route that forwards the client's")
    }

    func testFormEncodingAndAnEmptyWriteAnswer() throws {
        let (lifecycle, step) = begin(try createUser(encoding: .form), post(#"{"name":"Ada Lovelace","age":36}"#))
        let request = try XCTUnwrap(orders(step).first?.request)
        XCTAssertEqual(request.body.map { String(decoding: $0, as: UTF8.self) }, "name=Ada%20Lovelace&age=36")
        XCTAssertTrue(
            request.headers.contains(NameValue(name: "Content-Type", value: "application/x-www-form-urlencoded")))
        let (answer, _) = response(
            lifecycle.fetchFinished(0, .response(UpstreamResponse(status: 204, contentType: nil, body: [])), seconds: 0)
        )
        XCTAssertEqual(answer.status, 204)
        XCTAssertTrue(answer.body.isEmpty)
        XCTAssertFalse(answer.head(bodyBytes: 0, keepAlive: true).text.contains("Content-Length"))
    }

    // MARK: - Upstream verdicts

    func testTheClientsOwnRejectionReachesItOnRoutesThatForwardItsCredentials() throws {
        var route = try createUser()
        var (lifecycle, _) = begin(route, post(#"{"name":"Ada"}"#))
        let (unauthorized, _) = response(
            lifecycle.fetchFinished(0, ok(#"{"error":"token expired"}"#, status: 401), seconds: 0))
        XCTAssertEqual(unauthorized.status, 401)
        XCTAssertEqual(member(unauthorized, "code"), .string("upstream-rejected"))
        XCTAssertNil(member(unauthorized, "upstream-error"), "upstream bodies are not echoed unless the route says so")

        route.exposeUpstreamErrors = true
        (lifecycle, _) = begin(route, post(#"{"name":"Ada"}"#))
        let (limited, _) = response(
            lifecycle.fetchFinished(
                0,
                .response(
                    UpstreamResponse(
                        status: 429, contentType: "application/json",
                        body: Array(#"{"error":"slow down"}"#.utf8), retryAfter: "30")),
                seconds: 0))
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.headers.first { $0.name == "Retry-After" }?.value, "30")
        XCTAssertEqual(member(limited, "upstream-error"), .object(JSONObject(["error": .string("slow down")])))

        let (plain, _) = begin(makeRoute("users", "GET", "/users"), HTTPRequest(method: "GET", target: "/users"))
        let (operatorError, _) = response(plain.fetchFinished(0, ok("{}", status: 401), seconds: 0))
        XCTAssertEqual(operatorError.status, 502, "without forwarded credentials a 401 is the operator's problem")
        XCTAssertEqual(member(operatorError, "code"), .string("upstream-status"))
    }

    func testAPathParameterThatWouldLeaveTheUpstreamPathIsRefused() {
        let (answer, _) = response(
            begin(
                makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json"),
                HTTPRequest(method: "GET", target: "/users/..")
            ).1)
        XCTAssertEqual(answer.status, 400)
        XCTAssertEqual(member(answer, "code"), .string("bad-parameter"))
    }
}
