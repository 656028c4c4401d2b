import ReshapeJSON
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

    /// The line as a JSON tree serializes it, members in the documented order: the oracle the
    /// writer's line must equal byte for byte.
    private func treeLine(_ e: AccessLogEntry, _ redactor: Redactor) -> [UInt8] {
        func ms(_ value: Double) -> JSON {
            let thousandths = Int((value * 1000).rounded())
            let fraction = thousandths % 1000
            let pad = fraction < 10 ? "00" : fraction < 100 ? "0" : ""
            return .number(JSONNumber(uncheckedText: "\(thousandths / 1000).\(pad)\(fraction)"))
        }
        var object = JSONObject()
        object["time_ms"] = .number(JSONNumber(e.timeMilliseconds))
        object["method"] = .string(e.method)
        object["path"] = .string(redactor.redact(e.path))
        if let route = e.route { object["route"] = .string(route) }
        object["status"] = .number(JSONNumber(e.status))
        if let upstream = e.upstreamStatus { object["upstream_status"] = .number(JSONNumber(upstream)) }
        object["duration_ms"] = ms(e.durationMilliseconds)
        if let upstream = e.upstreamMilliseconds { object["upstream_ms"] = ms(upstream) }
        object["bytes"] = .number(JSONNumber(e.bytes))
        object["fetches"] = .number(JSONNumber(e.fetches))
        object["dropped"] = .number(JSONNumber(e.dropped.count))
        if !e.dropped.isEmpty {
            object["dropped_elements"] = .array(
                e.dropped.prefix(20).map {
                    .object(
                        JSONObject([
                            "pointer": .string($0.pointer), "type": .string($0.type),
                            "reason": .string(redactor.redact($0.reason)),
                        ]))
                })
        }
        if let error = e.errorCode { object["error"] = .string(error) }
        if let trace = e.traceID { object["trace_id"] = .string(trace) }
        if let events = e.liveEvents { object["live_events"] = .number(JSONNumber(events)) }
        return JSON.object(object).serialized() + [0x0A]
    }

    func testTheWrittenLineIsTheSerializedTreeByteForByte() {
        let redactor = Redactor(secrets: ["s3cret"])
        let odd = ["", "plain", "q\"uote\\back", "tab\tnl\n\u{01}", "é✓😀", "/a/s3cret/b"]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let pick = { odd[Int.random(in: 0..<odd.count, using: &generator)] }
            let dropped = (0..<[0, 1, 3, 25][round % 4]).map {
                DroppedElement(pointer: "/\($0)", type: pick(), reason: pick())
            }
            var entry = AccessLogEntry(
                timeMilliseconds: Int.random(in: 0...2_000_000_000_000, using: &generator), method: pick(),
                path: pick(), route: round % 3 == 0 ? nil : pick(), status: [200, 304, 404, 502][round % 4],
                upstreamStatus: round % 5 == 0 ? nil : 200,
                durationMilliseconds: Double.random(in: 0..<5000, using: &generator),
                upstreamMilliseconds: round % 2 == 0 ? nil : Double.random(in: 0..<5000, using: &generator),
                bytes: Int.random(in: 0...9_000_000, using: &generator), dropped: dropped,
                errorCode: round % 6 == 0 ? pick() : nil, fetches: round % 4,
                traceID: round % 7 == 0 ? nil : "4bf92f3577b34da6a3ce929d0e0e4736")
            if round % 9 == 0 { entry.liveEvents = round }
            XCTAssertEqual(entry.line(redactor: redactor), treeLine(entry, redactor), "round \(round)")
        }
    }
}
