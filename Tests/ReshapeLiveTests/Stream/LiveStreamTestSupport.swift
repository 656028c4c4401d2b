import ReshapeJSON
import ReshapeProblem
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// Two live routes over one users collection, differing only in what an invalid record does.
private let rules = """
    upstreams:
      api: { url: "http://127.0.0.1:8081" }
    types:
    \(UsersRules.userType())
    routes:
    \(UsersRules.route(upstream: "api"))
    \(UsersRules.route(name: "strict-users", request: "GET /strict/users", upstream: "api", invalid: "fail"))
    """

/// The named route's real pipeline as a `LiveStream.Normalize`, a pipeline error becoming the
/// problem a plain GET answers with.
func normalize(route name: String) throws -> LiveStream.Normalize {
    let ruleSet: RuleSet
    switch RuleLoader.load(files: [("live.yaml", rules)], environment: [:]) {
    case .success(let loaded): ruleSet = loaded
    case .failure(let diagnostics): throw diagnostics
    }
    let route = try XCTUnwrap(ruleSet.routes.first { $0.name == name })
    return { (value) throws(Problem) -> JSON in
        do throws(PipelineError) {
            return try OfflineRun.respond(route, fetched: .single(OfflineRun.tape(value)), parameters: [:]).value
        } catch {
            throw Problem(
                status: 502, code: error.code, title: "Upstream response could not be normalized",
                detail: error.message)
        }
    }
}

/// A Firebase event spelled as the stream spells it: `event("put", "/-Nx1", #"{"name":"Ada"}"#)`.
func event(_ name: String, _ path: String, _ data: String, file: StaticString = #filePath, line: UInt = #line)
    -> FirebaseEvent
{
    let body = #"{"path":"\#(path)","data":\#(data)}"#
    do {
        return try FirebaseEvent(ServerSentEvent(name: name, data: body))
    } catch {
        XCTFail("bad test event \(name) \(body): \(error)", file: file, line: line)
        return .keepAlive
    }
}

/// A stream and the subscriber at its other end: the subscriber applies every patch to the
/// answer it holds, and the test checks that against the route's answer for a document kept
/// apart from the stream's (what a fresh plain GET would return), byte for byte.
struct Subscriber {
    var stream: LiveStream
    let normalize: LiveStream.Normalize
    /// The document as the upstream holds it, kept by the test.
    var upstream = FirebaseDocument()
    /// What the subscriber holds: the snapshot with every patch applied.
    var answer: JSON?
    var ids: [Int] = []
    /// Every byte the subscriber received.
    var received: [UInt8] = []

    init(route: String, context: [JSONMember] = []) throws {
        normalize = try ReshapeLiveTests.normalize(route: route)
        stream = LiveStream(context: context, normalize: normalize)
    }

    /// Feeds `event` and returns what was sent for it (nil: nothing), checking the subscriber's
    /// answer against a fresh normalize of the upstream's document after every event.
    @discardableResult
    mutating func feed(_ event: FirebaseEvent, file: StaticString = #filePath, line: UInt = #line) -> LiveEvent? {
        _ = try? upstream.apply(event)
        let sent: LiveEvent?
        switch stream.received(event) {
        case .none: sent = nil
        case .send(let event), .end(let event): sent = event
        }
        guard let sent else {
            checkAnswer(file: file, line: line)
            return nil
        }
        ids.append(sent.id)
        sent.appendServerSentEvent(to: &received)
        switch sent.kind {
        case .snapshot(let snapshot):
            answer = snapshot
        case .patch(let patch):
            do {
                answer = try patch.applied(to: XCTUnwrap(answer, "a patch before any snapshot", file: file, line: line))
            } catch {
                XCTFail("\(patch.text) does not apply: \(error)", file: file, line: line)
            }
        case .error:
            return sent
        }
        checkAnswer(file: file, line: line)
        return sent
    }

    /// The upstream stream dropped and was reopened: the subscriber waits for a fresh snapshot
    /// of the upstream's value, which the next root `put` brings.
    mutating func reconnect() -> LiveStream.Action {
        upstream = FirebaseDocument()
        answer = nil
        return stream.reconnected()
    }

    private func checkAnswer(file: StaticString, line: UInt) {
        guard let answer, !stream.isEnded else { return }
        guard let expected = try? normalize(upstream.value) else { return }
        XCTAssertEqual(answer.serializedString(), expected.serializedString(), file: file, line: line)
    }
}

extension LiveEvent {
    /// The event's data as text.
    var text: String { String(decoding: data, as: UTF8.self) }
}
