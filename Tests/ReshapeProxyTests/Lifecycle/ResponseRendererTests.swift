import ReshapeJSON
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// What the client gets for what an upstream answered, through the path the server runs: a
/// request of a single-fetch route begun, and its fetch finished with the upstream's result.
final class ResponseRendererTests: XCTestCase {
    /// The answer and what the lifecycle recorded of it (its drops and error code).
    private func render(_ result: UpstreamResult, steps: [any TransformOperation] = []) -> ResponseRenderer.Rendered {
        let rules = ServingRules(
            RuleSet(
                upstreams: ["api": makeUpstream(secrets: ["tok3n"])],
                routes: [makeRoute("users", "GET", "/users", steps: steps)], digest: "d"))
        let settings = LifecycleSettings(
            endpoints: .all, canFetch: true, accessLog: false, metrics: Metrics(),
            admin: { _ in HTTPResponse(status: 404) })
        let (lifecycle, _) = RequestLifecycle.begin(
            HTTPRequest(method: "GET", target: "/users"), rules: rules,
            draining: false, settings: settings, now: 0)
        let response = lifecycle.finishOnlyFetch(result, seconds: 0)
        guard case .responding(let record) = lifecycle.state else {
            XCTFail("an answered fetch leaves the request responding, not \(lifecycle.stateName)")
            return ResponseRenderer.Rendered(response: response, dropped: [], errorCode: nil)
        }
        return ResponseRenderer.Rendered(response: response, dropped: record.dropped, errorCode: record.errorCode)
    }

    private func json(_ status: Int, _ body: String, contentType: String? = "application/json") -> UpstreamResult {
        .response(UpstreamResponse(status: status, contentType: contentType, body: Array(body.utf8)))
    }

    private func header(_ rendered: ResponseRenderer.Rendered, _ name: String) -> String? {
        rendered.response.headers.first { $0.name == name }?.value
    }

    /// Checks the RFC 9457 shape every error shares and returns the body.
    private func assertProblem(
        _ rendered: ResponseRenderer.Rendered, status: Int, code: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> JSON? {
        XCTAssertEqual(rendered.response.status, status, file: file, line: line)
        XCTAssertEqual(rendered.errorCode, code, file: file, line: line)
        XCTAssertEqual(header(rendered, "Content-Type"), "application/problem+json", file: file, line: line)
        let body = parseJSON(rendered.response.body)
        XCTAssertEqual(body?["type"]?.stringValue, "https://reshape.dev/problems/\(code)", file: file, line: line)
        XCTAssertEqual(body?["status"]?.intValue, status, file: file, line: line)
        XCTAssertEqual(body?["code"]?.stringValue, code, file: file, line: line)
        XCTAssertNotNil(body?["title"]?.stringValue, file: file, line: line)
        XCTAssertNotNil(body?["detail"]?.stringValue, file: file, line: line)
        XCTAssertEqual(body?["route"]?.stringValue, "users", file: file, line: line)
        XCTAssertEqual(body?["upstream"]?.stringValue, "api", file: file, line: line)
        return body
    }

    func testJSONIsNormalizedAndWrittenCompact() {
        let rendered = render(json(200, "{ \"b\": [1, 2], \"a\": null }"))
        XCTAssertEqual(rendered.response.status, 200)
        XCTAssertEqual(header(rendered, "Content-Type"), "application/json")
        XCTAssertEqual(rendered.response.body.text, "{\"b\":[1,2],\"a\":null}")
        XCTAssertNil(header(rendered, "Reshape-Dropped"))
        XCTAssertNil(rendered.errorCode)
    }

    func testDroppedElementsAreCountedInAHeader() {
        let rendered = render(json(200, "[{\"a\":1}, 2, \"x\"]"), steps: [DropNonObjectsStep()])
        XCTAssertEqual(rendered.response.body.text, "[{\"a\":1}]")
        XCTAssertEqual(header(rendered, "Reshape-Dropped"), "2")
        XCTAssertEqual(rendered.dropped.map(\.pointer), ["/1", "/2"])
    }

    func testInvalidJSONIs502WithLineAndColumn() {
        let body = assertProblem(render(json(200, "{\n  \"a\": tru\n}")), status: 502, code: "upstream-invalid-json")
        XCTAssertEqual(body?["line"]?.intValue, 2)
        XCTAssertNotNil(body?["column"]?.intValue)
    }

    func testHTMLIs502NotJSON() {
        _ = assertProblem(
            render(json(200, "<html>oops</html>", contentType: "text/html")), status: 502, code: "upstream-not-json")
    }

    func testJSONBodyWithAWrongContentTypeIsStillNormalized() {
        XCTAssertEqual(render(json(200, "[1]", contentType: "text/plain")).response.status, 200)
    }

    func testAFailedPipelineIs502WithEveryViolation() {
        let error = PipelineError(
            code: "validation-failed", message: "not a User", pointer: "",
            errors: [.init(pointer: "/name", keyword: "minLength", reason: "too short")])
        let body = assertProblem(
            render(json(200, "{}"), steps: [FailingStep(error: error)]), status: 502, code: "validation-failed")
        let first = body?["errors"]?.arrayValue?.first
        XCTAssertEqual(first?["pointer"]?.stringValue, "/name")
        XCTAssertEqual(first?["keyword"]?.stringValue, "minLength")
        XCTAssertEqual(first?["reason"]?.stringValue, "too short")
    }

    func testUpstreamStatusesMap() {
        _ = assertProblem(render(json(404, "null")), status: 404, code: "upstream-not-found")
        let body = assertProblem(render(json(500, "{\"error\":\"boom\"}")), status: 502, code: "upstream-status")
        XCTAssertEqual(body?["upstream_status"]?.intValue, 500)
        _ = assertProblem(render(json(401, "{\"error\":\"Permission denied\"}")), status: 502, code: "upstream-status")
        _ = assertProblem(render(json(302, "")), status: 502, code: "upstream-status")
    }

    func testErrorBodiesAreNeverPassedThrough() {
        let rendered = render(json(500, "{\"error\":\"internal detail\"}"))
        XCTAssertFalse(rendered.response.body.text.contains("internal detail"))
    }

    func testSaturatedAndShedCarryRetryAfter() {
        let saturated = render(.saturated("the queue is full", retryAfterSeconds: 3))
        XCTAssertEqual(saturated.response.status, 503)
        XCTAssertTrue(saturated.response.headers.contains { $0.name == "Retry-After" && $0.value == "3" })
        let shed = render(.failure(.loadShed, message: "no room"))
        XCTAssertTrue(shed.response.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
    }

    func testFailureKindsMap() {
        let expected: [(UpstreamFailure, Int, String)] = [
            (.timeout, 504, "upstream-timeout"), (.dns, 502, "upstream-unreachable"),
            (.connect, 502, "upstream-unreachable"),
            (.tls, 502, "upstream-unreachable"), (.tooLarge, 502, "upstream-too-large"),
            (.transfer, 502, "upstream-failed"),
            (.other, 502, "upstream-failed"), (.unavailable, 503, "upstream-unavailable"),
            (.redirectRefused, 502, "upstream-redirect-refused"), (.saturated, 503, "upstream-saturated"),
            (.loadShed, 503, "load-shed"),
        ]
        XCTAssertEqual(expected.count, UpstreamFailure.allCases.count, "every failure kind has a mapping test")
        for (kind, status, code) in expected {
            _ = assertProblem(render(.failure(kind, message: "curl said so")), status: status, code: code)
        }
    }

    func testAnOpenCircuitIsA503WithTheSecondsUntilTheProbe() {
        let rendered = render(.circuitOpen(retryAfterSeconds: 7))
        XCTAssertEqual(rendered.response.status, 503)
        XCTAssertEqual(rendered.errorCode, "upstream-unavailable")
        XCTAssertTrue(rendered.response.headers.contains(NameValue(name: "Retry-After", value: "7")))
    }

    func testSecretsAreRedactedFromProblemDetails() {
        let rendered = render(.failure(.connect, message: "could not connect to https://x/?auth=tok3n"))
        XCTAssertFalse(rendered.response.body.text.contains("tok3n"))
        XCTAssertTrue(rendered.response.body.text.contains("[REDACTED]"))
    }
}
