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
            XCTAssertEqual(
                String(decoding: problem.serializedBody, as: UTF8.self),
                String(decoding: problem.body.serialized(), as: UTF8.self))
            XCTAssertEqual(problem.response.body, problem.body.serialized())
        }
    }
}
