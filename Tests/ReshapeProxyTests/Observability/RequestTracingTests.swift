import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// Issue 19 item 4 without sockets: which trace a request belongs to, what each fetch sends
/// upstream, and the spans built from a request's lifecycle. Ids come from a seeded generator.
final class RequestTracingTests: XCTestCase {
    private let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    private let clientSpan = "00f067aa0ba902b7"

    private final class Collected: @unchecked Sendable { var spans: [Span] = [] }

    private let rules = ServingRules(
        RuleSet(
            upstreams: [
                "api": makeUpstream(
                    port: 8443, headers: [NameValue(name: "traceparent", value: "operator-set")],
                    query: [NameValue(name: "key", value: "s3cret")], secrets: ["s3cret"])
            ],
            routes: [makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json")],
            digest: "d1"))

    private func settings(_ tracer: Tracer) -> LifecycleSettings {
        LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: true, metrics: Metrics(), tracer: tracer,
            admin: { _ in HTTPResponse(status: 404) })
    }

    private func exporting(ratio: Double = 1, seed: UInt64 = 7) -> (Tracer, Collected) {
        let collected = Collected()
        let tracer = Tracer(
            random: TraceRandom(seed: seed), sampleRatio: ratio, unixOffsetSeconds: 1000,
            export: { collected.spans.append($0) })
        return (tracer, collected)
    }

    private func request(_ headers: [NameValue]) -> HTTPRequest {
        HTTPRequest(method: "GET", target: "/users/u1?token=abc", headers: headers)
    }

    private func onlyOrder(_ action: RequestLifecycle.Action) throws -> FetchOrder {
        guard case .fetch(let orders, _) = action, orders.count == 1 else { throw XCTSkip("expected one fetch") }
        return orders[0]
    }

    /// Exports the spans `action` hands over, as the server does; the action behind them.
    private func exportingSpans(_ action: RequestLifecycle.Action, to tracer: Tracer) -> RequestLifecycle.Action {
        guard case .exportSpan(let span, let next) = action else { return action }
        tracer.send(span)
        return exportingSpans(next, to: tracer)
    }

    /// Records the answer as the server does (its server span exported); what was recorded.
    private func answer(
        _ lifecycle: RequestLifecycle, _ response: HTTPResponse, now: Double, to tracer: Tracer
    ) throws -> FinishedRequest {
        let finished = try XCTUnwrap(lifecycle.answered(response, now: now, wallClockMilliseconds: 0).finished)
        if let span = finished.span { tracer.send(span) }
        return finished
    }

    private func attribute(_ span: Span, _ key: String) -> Span.Value? {
        span.attributes.first { $0.key == key }?.value
    }

    // MARK: - The trace a request belongs to

    func testAValidTraceparentIsContinuedWithItsFlagAndState() {
        let (tracer, _) = exporting()
        let trace = tracer.begin(
            traceparent: "00-\(clientTrace)-\(clientSpan)-01", tracestate: "congo=t61rcWkgMzE")
        XCTAssertEqual(trace.context.traceID, clientTrace)
        XCTAssertEqual(trace.parentSpanID, clientSpan)
        XCTAssertNotEqual(trace.context.spanID, clientSpan)
        XCTAssertEqual(trace.context.traceState, "congo=t61rcWkgMzE")
        XCTAssertTrue(trace.context.sampled)
        XCTAssertTrue(trace.recording)
    }

    func testAClientsUnsampledFlagWinsOverTheRatio() {
        let (tracer, _) = exporting(ratio: 1)
        let trace = tracer.begin(traceparent: "00-\(clientTrace)-\(clientSpan)-00", tracestate: nil)
        XCTAssertFalse(trace.context.sampled)
        XCTAssertFalse(trace.recording)
    }

    func testAnInvalidTraceparentStartsAFreshTrace() {
        let (tracer, _) = exporting()
        for invalid in [
            "00-\(String(repeating: "0", count: 32))-\(clientSpan)-01",
            "00-\(clientTrace.uppercased())-\(clientSpan)-01",
            "ff-\(clientTrace)-\(clientSpan)-01", "00-\(clientTrace)-\(clientSpan)-01-extra", "garbage",
        ] {
            let trace = tracer.begin(traceparent: invalid, tracestate: "a=b")
            XCTAssertNotEqual(trace.context.traceID, clientTrace, invalid)
            XCTAssertNil(trace.parentSpanID, invalid)
            XCTAssertNil(trace.context.traceState, "a tracestate without its traceparent is not passed on")
            XCTAssertEqual(trace.context.traceID.count, 32)
        }
    }

    func testTracesStartedHereAreSampledAtTheRatio() {
        let (never, _) = exporting(ratio: 0)
        XCTAssertFalse((0..<100).contains { _ in never.begin(traceparent: nil, tracestate: nil).context.sampled })
        let (half, _) = exporting(ratio: 0.25)
        let sampled = (0..<10_000).filter { _ in half.begin(traceparent: nil, tracestate: nil).context.sampled }.count
        XCTAssertEqual(Double(sampled) / 10_000, 0.25, accuracy: 0.02)
    }

    func testWithoutAnEndpointNothingIsRecordedButTheFlagStillPassesOn() {
        let tracer = Tracer(random: TraceRandom(seed: 1))
        let trace = tracer.begin(traceparent: nil, tracestate: nil)
        XCTAssertTrue(trace.context.sampled)
        XCTAssertFalse(trace.recording)
    }

    func testTheSameSeedGivesTheSameIds() {
        let first = Tracer(random: TraceRandom(seed: 42)).begin(traceparent: nil, tracestate: nil)
        let second = Tracer(random: TraceRandom(seed: 42)).begin(traceparent: nil, tracestate: nil)
        XCTAssertEqual(first.context, second.context)
        let other = Tracer(random: TraceRandom(seed: 43)).begin(traceparent: nil, tracestate: nil)
        XCTAssertNotEqual(first.context.traceID, other.context.traceID)
    }

    // MARK: - What a fetch sends

    func testAFetchSendsItsOwnSpanInTheClientsTraceOnceInPlaceOfAnyOther() throws {
        let (tracer, _) = exporting()
        let incoming = [
            NameValue(name: "traceparent", value: "00-\(clientTrace)-\(clientSpan)-01"),
            NameValue(name: "tracestate", value: "congo=t61rcWkgMzE"),
        ]
        let (lifecycle, action) = RequestLifecycle.begin(
            request(incoming), rules: rules, draining: false, settings: settings(tracer), now: 5)
        let order = try onlyOrder(action)
        // What the transfer sends: the shared headers, then the fetch's own trace headers.
        let sent = order.request.headers + order.request.traceHeaders
        let traceparents = sent.filter { $0.name.lowercased() == "traceparent" }
        XCTAssertEqual(traceparents.count, 1, "the upstream's own traceparent is replaced")
        let fetchTrace = try XCTUnwrap(order.request.trace)
        XCTAssertEqual(traceparents.first?.value, "00-\(clientTrace)-\(fetchTrace.spanID)-01")
        XCTAssertNotEqual(fetchTrace.spanID, clientSpan)
        XCTAssertNotEqual(fetchTrace.spanID, lifecycle.trace.context.spanID)
        XCTAssertEqual(sent.first { $0.name == "tracestate" }?.value, "congo=t61rcWkgMzE")
        XCTAssertFalse(order.request.headers.contains { UpstreamRequestBuilder.isTraceHeader($0.name) })
    }

    func testABuilderWithoutATraceSendsNoTraceHeaders() throws {
        let route = makeRoute("user", "GET", "/users/{id}", upstreamPath: "/users/{id}.json")
        let request = try UpstreamRequestBuilder.build(
            route: route, upstream: makeUpstream(), parameters: ["id": "u1"], rawQuery: "")
        XCTAssertFalse(request.headers.contains { UpstreamRequestBuilder.isTraceHeader($0.name) })
        XCTAssertNil(request.trace)
    }

    // MARK: - Spans from a lifecycle

    func testARecordedRequestExportsAClientSpanPerFetchAndItsServerSpan() throws {
        let (tracer, collected) = exporting()
        let (lifecycle, action) = RequestLifecycle.begin(
            request([NameValue(name: "traceparent", value: "00-\(clientTrace)-\(clientSpan)-01")]), rules: rules,
            draining: false, settings: settings(tracer), now: 5)
        let order = try onlyOrder(action)
        let ended = lifecycle.fetchFinished(
            order.id,
            .response(UpstreamResponse(status: 200, contentType: "application/json", body: Array(#"{"a":1}"#.utf8))),
            seconds: 0.25, now: 5.5, retries: 2)
        guard case .exportSpan = ended else { return XCTFail("the fetch's span is handed over: \(ended)") }
        XCTAssertTrue(collected.spans.isEmpty, "the server exports it, not the lifecycle")
        let next = exportingSpans(ended, to: tracer)
        guard case .respond(let response, _) = next else { return XCTFail("expected the answer, got \(next)") }
        XCTAssertEqual(collected.spans.count, 1, "the client span leaves as its fetch ends")
        let line = try XCTUnwrap(try answer(lifecycle, response, now: 6, to: tracer).accessLogLine).text
        XCTAssertTrue(line.contains(#""trace_id":"\#(clientTrace)""#), line)
        XCTAssertEqual(collected.spans.count, 2)
        let client = collected.spans[0]
        let server = collected.spans[1]

        XCTAssertEqual(server.kind, .server)
        XCTAssertEqual(server.name, "GET /users/{id}")
        XCTAssertEqual(server.traceID, clientTrace)
        XCTAssertEqual(server.parentSpanID, clientSpan)
        XCTAssertEqual(server.spanID, lifecycle.trace.context.spanID)
        XCTAssertEqual(server.startUnixNanoseconds, 1_005_000_000_000)
        XCTAssertEqual(server.endUnixNanoseconds, 1_006_000_000_000)
        XCTAssertEqual(attribute(server, "http.request.method"), .string("GET"))
        XCTAssertEqual(attribute(server, "http.route"), .string("/users/{id}"))
        XCTAssertEqual(attribute(server, "url.path"), .string("/users/u1"))
        XCTAssertEqual(attribute(server, "http.response.status_code"), .int(200))
        XCTAssertEqual(attribute(server, "reshape.route"), .string("user"))
        XCTAssertEqual(attribute(server, "reshape.dropped"), .int(0))
        XCTAssertEqual(attribute(server, "reshape.cache"), .string("none"))
        XCTAssertFalse(server.failed)

        XCTAssertEqual(client.kind, .client)
        XCTAssertEqual(client.name, "GET /users/{id}.json")
        XCTAssertEqual(client.traceID, clientTrace)
        XCTAssertEqual(client.spanID, order.request.trace?.spanID)
        XCTAssertEqual(client.parentSpanID, server.spanID)
        XCTAssertEqual(client.startUnixNanoseconds, 1_005_250_000_000)
        XCTAssertEqual(client.endUnixNanoseconds, 1_005_500_000_000)
        XCTAssertEqual(attribute(client, "server.address"), .string("api.example.com"))
        XCTAssertEqual(attribute(client, "server.port"), .int(8443))
        XCTAssertEqual(
            attribute(client, "url.full"), .string("https://api.example.com:8443/users/u1.json?key=[REDACTED]"))
        XCTAssertEqual(attribute(client, "http.response.status_code"), .int(200))
        XCTAssertEqual(attribute(client, "reshape.retry_count"), .int(2))
        XCTAssertNil(attribute(client, "error.type"))
        let encoded = OTLPJSON.exportRequest(serviceName: "reshape", spans: collected.spans).text
        XCTAssertFalse(encoded.contains("s3cret") || encoded.contains("token=abc"), encoded)
    }

    func testAFailedFetchIsAnErrorSpanAndA5xxAnswerAFailedServerSpan() throws {
        let (tracer, collected) = exporting()
        let (lifecycle, action) = RequestLifecycle.begin(
            request([]), rules: rules, draining: false, settings: settings(tracer), now: 0)
        let order = try onlyOrder(action)
        let next = exportingSpans(
            lifecycle.fetchFinished(order.id, .failure(.connect, message: "refused"), seconds: 0.1), to: tracer)
        guard case .respond(let response, _) = next else { return XCTFail("expected the answer, got \(next)") }
        _ = try answer(lifecycle, response, now: 1, to: tracer)
        XCTAssertEqual(collected.spans.count, 2)
        XCTAssertEqual(attribute(collected.spans[0], "error.type"), .string("connect"))
        XCTAssertNil(attribute(collected.spans[0], "http.response.status_code"))
        XCTAssertTrue(collected.spans[0].failed)
        XCTAssertEqual(collected.spans[0].startUnixNanoseconds, 1_000_000_000_000, "without `now`: from the start")
        XCTAssertEqual(attribute(collected.spans[1], "http.response.status_code"), .int(response.status))
        XCTAssertTrue(collected.spans[1].failed)
        XCTAssertNil(collected.spans[1].parentSpanID, "a trace started here has no parent")
    }

    func testAnUnsampledRequestBuildsNoSpansButLogsItsTrace() throws {
        let (tracer, collected) = exporting()
        let (lifecycle, action) = RequestLifecycle.begin(
            request([NameValue(name: "traceparent", value: "00-\(clientTrace)-\(clientSpan)-00")]), rules: rules,
            draining: false, settings: settings(tracer), now: 0)
        let order = try onlyOrder(action)
        XCTAssertTrue(order.request.traceHeaders.contains { $0.name == "traceparent" && $0.value.hasSuffix("-00") })
        let next = lifecycle.fetchFinished(
            order.id, .response(UpstreamResponse(status: 200, contentType: "application/json", body: Array("{}".utf8))),
            seconds: 0.1)
        guard case .respond(let response, _) = next else { return XCTFail("expected the answer, got \(next)") }
        let line = try XCTUnwrap(lifecycle.answered(response, now: 1, wallClockMilliseconds: 0).accessLogLine).text
        XCTAssertTrue(line.contains(#""trace_id":"\#(clientTrace)""#), line)
        XCTAssertTrue(collected.spans.isEmpty)
        XCTAssertTrue(lifecycle.fetchSpans.isEmpty)
    }

    func testAnUnroutedRequestIsNamedByItsMethodAlone() throws {
        let (tracer, collected) = exporting()
        let (lifecycle, action) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/nowhere"), rules: rules, draining: false,
            settings: settings(tracer), now: 0)
        guard case .respond(let response, _) = action else { return XCTFail("expected an answer, got \(action)") }
        _ = try answer(lifecycle, response, now: 0.01, to: tracer)
        XCTAssertEqual(collected.spans.map(\.name), ["GET"])
        XCTAssertNil(attribute(collected.spans[0], "http.route"))
    }

    func testAFetchURLShowsNoSecretAndNoForwardedQueryValue() {
        let redactor = Redactor(secrets: ["s3cret"])
        XCTAssertEqual(
            FetchSpanStart.shownURL(
                "https://api/x?key=s3cret&page=2&q=a%20b&token=t0k", forwardedQuery: ["q", "token"],
                redactor: redactor),
            "https://api/x?key=[REDACTED]&page=2&q=[REDACTED]&token=[REDACTED]")
        XCTAssertEqual(
            FetchSpanStart.shownURL("https://api/x?key=s3cret", forwardedQuery: [], redactor: redactor),
            "https://api/x?key=[REDACTED]")
        XCTAssertEqual(
            FetchSpanStart.shownURL("https://api/x", forwardedQuery: ["q"], redactor: redactor), "https://api/x")
        // A base64 key goes into the URL percent-encoded: that form is a secret too.
        XCTAssertEqual(
            FetchSpanStart.shownURL(
                "https://api/x?api_key=ab%2Bc%2Fd%3D%3D", forwardedQuery: [], redactor: Redactor(secrets: ["ab+c/d=="])),
            "https://api/x?api_key=[REDACTED]")
    }

    // MARK: - Configuration and counters

    func testTheEndpointComesFromTheFlagOrTheStandardVariables() throws {
        func traces(_ flag: String?, _ environment: [String: String] = [:]) -> String? {
            try? OTLPEndpoint.traces(flag: flag, environment: environment).get()
        }
        XCTAssertNil(traces(nil))
        XCTAssertEqual(traces("http://collector:4318"), "http://collector:4318/v1/traces")
        XCTAssertEqual(traces("http://collector:4318/"), "http://collector:4318/v1/traces")
        XCTAssertEqual(traces("https://collector/otlp/spans"), "https://collector/otlp/spans")
        XCTAssertEqual(
            traces(nil, ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"]), "http://c:4318/v1/traces")
        XCTAssertEqual(
            traces(
                nil,
                ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/x"]),
            "http://t/x")
        XCTAssertEqual(
            traces("http://flag:1", ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/x"]), "http://flag:1/v1/traces")
        for bad in ["collector:4318", "ftp://c/x", "http://", "http:///v1/traces"] {
            XCTAssertThrowsError(try OTLPEndpoint.traces(flag: bad, environment: [:]).get(), bad)
        }
        XCTAssertEqual(OTLPEndpoint.displayed("https://user:pw@c:4318/v1/traces"), "https://c:4318/v1/traces")
        XCTAssertEqual(OTLPEndpoint.displayed("http://c/a@b"), "http://c/a@b")
        XCTAssertEqual(OTLPEndpoint.displayed("https://c/v1/traces?api_key=k3y#x"), "https://c/v1/traces")
    }

    func testSpanCountersAreExposed() {
        let one = Metrics()
        let two = Metrics()
        one.recordSpansExported(512)
        two.recordSpansExported(3)
        one.recordSpansDropped(7, reason: .queueFull)
        two.recordSpansDropped(2, reason: .exportFailed)
        let text = Metrics.exposition([one, two], digest: "d", reloads: 0, reloadFailures: 0)
        XCTAssertTrue(text.contains("reshape_spans_exported_total 515\n"), text)
        XCTAssertTrue(text.contains(#"reshape_spans_dropped_total{reason="queue-full"} 7"#), text)
        XCTAssertTrue(text.contains(#"reshape_spans_dropped_total{reason="export-failed"} 2"#), text)
    }
}
