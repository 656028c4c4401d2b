import ReshapeJSON
import ReshapeProblem
import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// A live event's bytes are written without making its data text first: they must be those
/// `ServerSentEventWriter` writes for the same event, line breaks inside strings and all.
final class LiveEventRenderingTests: XCTestCase {
    private func written(_ event: LiveEvent) -> [UInt8] {
        var bytes: [UInt8] = []
        ServerSentEventWriter.append(
            ServerSentEvent(name: event.name, data: String(decoding: event.data, as: UTF8.self), id: String(event.id)),
            to: &bytes)
        return bytes
    }

    func testEveryKindRendersAsTheWriterWritesIt() throws {
        var answers = RandomAnswers(seed: 27)
        var answer = answers.answer(records: 40)
        guard case .object(var root) = answer else { return XCTFail("not an object") }
        root["note"] = .string("line\nbreak\r\nand\rreturn \u{2028} \u{85} \"quoted\" \\ end")
        answer = .object(root)
        let changed = answers.changed(answer)
        let problem = Problem(
            status: 502, code: "validation-failed", title: "Upstream response could not be normalized",
            detail: "value does not match\n(two lines)")
        let events = [
            LiveEvent(id: 1, kind: .snapshot(answer)),
            LiveEvent(id: 2, kind: .patch(JSONPatch.difference(from: answer, to: changed))),
            LiveEvent(id: 12345, kind: .error(problem)),
        ]
        for event in events {
            var rendered: [UInt8] = []
            event.appendServerSentEvent(to: &rendered)
            XCTAssertEqual(String(decoding: rendered, as: UTF8.self), String(decoding: written(event), as: UTF8.self))
            var afterID: [UInt8] = []
            event.appendServerSentEventAfterID(to: &afterID)
            XCTAssertEqual(Array("id: \(event.id)\n".utf8) + afterID, rendered)
        }
    }
}
