import ReshapeRules
import XCTest

@testable import ReshapeProxy

final class AccessLogTests: XCTestCase {
    func testOneJSONLinePerRequestWithSecretsRedacted() {
        let entry = AccessLogEntry(
            timeMilliseconds: 1_700_000_000_123, method: "GET", path: "/users/tok3n", route: "user",
            status: 200, upstreamStatus: 200, durationMilliseconds: 12.3456, upstreamMilliseconds: 10.5,
            bytes: 42, dropped: [DroppedElement(pointer: "/3", type: "User", reason: "tok3n is bad")],
            errorCode: nil)
        let line = entry.line(redactor: Redactor(secrets: ["tok3n"]))
        XCTAssertEqual(line.last, 0x0A)
        XCTAssertEqual(line.filter { $0 == 0x0A }.count, 1, "exactly one line")
        XCTAssertFalse(line.text.contains("tok3n"))
        let object = parseJSON(Array(line.dropLast()))
        XCTAssertEqual(object?["time_ms"]?.intValue, 1_700_000_000_123)
        XCTAssertEqual(object?["path"]?.stringValue, "/users/[REDACTED]")
        XCTAssertEqual(object?["route"]?.stringValue, "user")
        XCTAssertEqual(object?["status"]?.intValue, 200)
        XCTAssertEqual(object?["upstream_status"]?.intValue, 200)
        XCTAssertEqual(object?["bytes"]?.intValue, 42)
        XCTAssertEqual(object?["dropped"]?.intValue, 1)
        XCTAssertTrue(line.text.contains("\"duration_ms\":12.346"), line.text)
        XCTAssertEqual(object?["dropped_elements"]?.arrayValue?.first?["reason"]?.stringValue, "[REDACTED] is bad")
        XCTAssertNil(object?["error"])
    }

    func testRedactorRemovesEverySecretLongestFirst() {
        let redactor = Redactor(secrets: ["abc", "abcdef", ""])
        XCTAssertEqual(redactor.redact("x abcdef y abc z"), "x [REDACTED] y [REDACTED] z")
        XCTAssertEqual(redactor.redact("nothing here"), "nothing here")
    }
}
