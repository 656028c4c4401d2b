import ReshapeJSON
import ReshapeProblem
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// A problem's body written member by member is the text its JSON tree serializes to.
final class ProblemBodyTests: XCTestCase {
    func testTheWrittenBodyIsTheTreesText() throws {
        var problems: [Problem] = [
            .rateLimited(policy: "per-key", retryAfterSeconds: 3),
            .badRequest("path segment 'caf\u{E9}\u{301}' has \"quotes\", a \\ and a \u{1} control"),
            .notFound(path: "/users/\u{1F600}"),
            .methodNotAllowed("DELETE", allowed: ["GET", "HEAD"]),
            .loadShed(retryAfter: 1, detail: Problem.loopLagDetail),
            Problem(
                status: 422, code: "validation-failed", title: "Invalid", detail: "",
                extra: [
                    JSONMember(
                        key: "errors",
                        value: try JSON.parse(Array(#"[{"pointer":"/0/age","line":3},null,1.50,-0]"#.utf8))),
                    JSONMember(key: "emp\u{0}ty", value: .object(JSONObject([]))),
                ]),
        ]
        for status in [-1, 0, Int.min, Int.max] {
            problems.append(Problem(status: status, code: "c", title: "t", detail: "d"))
        }
        // Extras may repeat a member of the five: the tree keeps both, so must the writer.
        problems.append(
            Problem(
                status: 500, code: "x", title: "t", detail: "d",
                extra: [
                    JSONMember(key: "code", value: .bool(true)), JSONMember(key: "status", value: .bool(false)),
                    JSONMember(key: "n", value: try JSON.parse(Array("1.5e-7".utf8))),
                ]))
        var random = SplitMix64(seed: 29)
        let alphabet: [Character] = ["a", "\"", "\\", "\u{7F}", "\u{0}", "\n", "\u{2028}", "é", "\u{1F600}", " "]
        for _ in 0..<200 {
            let text = String((0..<Int(random.next() % 24)).map { _ in alphabet[Int(random.next() % 10)] })
            problems.append(
                Problem(
                    status: Int(random.next() % 600), code: text, title: text, detail: text,
                    extra: [JSONMember(key: text, value: .string(text))]))
        }
        for problem in problems {
            // Bytes, not strings: `String ==` would take canonically equivalent text as equal.
            XCTAssertEqual(
                problem.serializedBody, problem.body.serialized(),
                String(decoding: problem.serializedBody, as: UTF8.self))
            XCTAssertEqual(problem.response.body, problem.body.serialized())
        }
    }
}
