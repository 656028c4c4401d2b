import ReshapeRules
import XCTest

final class RuleLoaderUpstreamTests: XCTestCase {
    func testDefaultsApplyWhenOmitted() throws {
        let rules = try XCTUnwrap(loaded([("u.yaml", plainUpstream)]))
        let api = try XCTUnwrap(rules.upstreams["api"])
        XCTAssertEqual(api.scheme, "http")
        XCTAssertEqual(api.host, "127.0.0.1")
        XCTAssertEqual(api.port, 8081)
        XCTAssertEqual(api.timeoutMilliseconds, 10_000)
        XCTAssertEqual(api.connectTimeoutMilliseconds, 3_000)
        XCTAssertEqual(api.maxBodyBytes, 64 << 20)
    }

    func testDurationsAndSizesAreParsed() throws {
        let text = """
            upstreams:
              api:
                url: https://example.com/base
                timeout: 250ms
                connect-timeout: 1m
                max-body: 10MB
            """
        let api = try XCTUnwrap(loaded([("u.yaml", text)])?.upstreams["api"])
        XCTAssertEqual(api.timeoutMilliseconds, 250)
        XCTAssertEqual(api.connectTimeoutMilliseconds, 60_000)
        XCTAssertEqual(api.maxBodyBytes, 10_000_000)
        XCTAssertEqual(api.basePath, "/base")
    }

    func testBadUrlDurationSizeAndKeyAreAllReported() {
        let text = """
            upstreams:
              api:
                url: ftp://example.com
                timeout: 5 seconds
                max-body: lots
                retries: 3
            """
        let lines = diagnostics([("u.yaml", text)])
        assertDiagnostic(lines, at: "u.yaml:3:10", contains: "scheme must be http or https")
        assertDiagnostic(lines, at: "u.yaml:4:14", contains: "duration like 250ms, 5s or 1m")
        assertDiagnostic(lines, at: "u.yaml:5:15", contains: "size like")
        assertDiagnostic(lines, at: "u.yaml:6:14", contains: "unknown upstream key 'retries'")
    }

    func testUserInfoQueryAndMissingUrlAreRefused() {
        let text = """
            upstreams:
              a:
                url: https://user:pw@example.com
              b:
                url: https://example.com/x?y=1
              c:
                timeout: 5s
            """
        let lines = diagnostics([("u.yaml", text)])
        assertDiagnostic(lines, at: "u.yaml:3:10", contains: "user info is not allowed")
        assertDiagnostic(lines, at: "u.yaml:5:10", contains: "no query or fragment")
        assertDiagnostic(lines, at: "u.yaml:7:5", contains: "upstream 'c' is missing `url`")
        XCTAssertFalse(lines.joined().contains("pw"), "a diagnostic must not echo credentials")
    }

    func testEnvironmentVariablesExpandIntoSecrets() throws {
        let text = """
            upstreams:
              api:
                url: ${BASE_URL:-http://127.0.0.1:9}
                headers:
                  Authorization: "Bearer ${TOKEN}"
            """
        let api = try XCTUnwrap(loaded([("u.yaml", text)], environment: ["TOKEN": "s3cret"])?.upstreams["api"])
        XCTAssertEqual(api.port, 9, "the :- default applies when the variable is unset")
        XCTAssertEqual(api.headers, [NameValue(name: "Authorization", value: "Bearer s3cret")])
        XCTAssertTrue(api.secrets.contains("s3cret"))

        let overridden = try XCTUnwrap(
            loaded([("u.yaml", text)], environment: ["TOKEN": "t", "BASE_URL": "https://h.example"])?.upstreams["api"])
        XCTAssertEqual(overridden.host, "h.example")
    }

    func testUnsetVariableIsNamedButNoValueIsPrinted() {
        let text = """
            upstreams:
              api:
                url: http://127.0.0.1:9
                headers:
                  Authorization: "Bearer ${TOKEN}"
            """
        let lines = diagnostics([("u.yaml", text)], environment: ["OTHER": "zzz-value"])
        assertDiagnostic(lines, at: "u.yaml:5:22", contains: "TOKEN is not set")
        XCTAssertFalse(lines.joined().contains("zzz-value"))
    }
}
