import ReshapeJSON
import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// A live route's stream driven by Firebase events, through the route's real pipeline
/// (keyed-to-array, validate, wrap): what the subscriber gets for each event.
final class LiveStreamTests: XCTestCase {
    private let initial = #"""
        {"-Nx1":{"name":"Ada","age":36},"-Nx2":{"name":"Bea","age":31},"-Nx3":{"name":""}}
        """#

    func testNothingIsSentBeforeTheFirstPutThenTheSnapshot() throws {
        var subscriber = try Subscriber(route: "users")
        XCTAssertNil(subscriber.feed(.keepAlive))
        XCTAssertNil(subscriber.feed(event("patch", "/-Nx0", #"{"name":"Zed"}"#)), "no answer to patch yet")
        let snapshot = try XCTUnwrap(subscriber.feed(event("put", "/", initial)))
        XCTAssertEqual(snapshot.name, "snapshot")
        XCTAssertEqual(snapshot.id, 1)
        XCTAssertEqual(
            snapshot.text,
            #"{"objects":[{"objectId":"-Nx1","name":"Ada","age":36},{"objectId":"-Nx2","name":"Bea","age":31}]}"#,
            "the put replaced what the patch before it built; -Nx3 is invalid and dropped")
        XCTAssertEqual(
            String(decoding: subscriber.received, as: UTF8.self),
            "id: 1\nevent: snapshot\ndata: \(snapshot.text)\n\n")
    }

    func testEachChangeOfTheAnswerIsOnePatch() throws {
        var subscriber = try Subscriber(route: "users")
        subscriber.feed(event("put", "/", initial))

        let added = try XCTUnwrap(subscriber.feed(event("put", "/-Nx4", #"{"name":"Cy","age":28}"#)))
        XCTAssertEqual(added.name, "patch")
        XCTAssertEqual(
            added.text, #"[{"op":"add","path":"/objects/2","value":{"objectId":"-Nx4","name":"Cy","age":28}}]"#)

        let field = try XCTUnwrap(subscriber.feed(event("patch", "/-Nx2", #"{"age":32}"#)))
        XCTAssertEqual(field.text, #"[{"op":"replace","path":"/objects/1/age","value":32}]"#)

        let invalid = try XCTUnwrap(subscriber.feed(event("put", "/-Nx1/age", "-1")))
        XCTAssertEqual(invalid.text, #"[{"op":"remove","path":"/objects/0"}]"#, "invalid: drop removes the record")

        let deleted = try XCTUnwrap(subscriber.feed(event("put", "/-Nx4", "null")))
        XCTAssertEqual(deleted.text, #"[{"op":"remove","path":"/objects/1"}]"#)

        let fixed = try XCTUnwrap(subscriber.feed(event("patch", "/", #"{"-Nx3":{"name":"Cat"}}"#)))
        XCTAssertEqual(fixed.text, #"[{"op":"add","path":"/objects/1","value":{"objectId":"-Nx3","name":"Cat"}}]"#)

        XCTAssertEqual(subscriber.ids, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(
            subscriber.answer?.serializedString(),
            #"{"objects":[{"objectId":"-Nx2","name":"Bea","age":32},{"objectId":"-Nx3","name":"Cat"}]}"#)
    }

    func testAnEventThatLeavesTheAnswerAsItWasSendsNothing() throws {
        var subscriber = try Subscriber(route: "users")
        subscriber.feed(event("put", "/", initial))
        XCTAssertNil(subscriber.feed(event("put", "/-Nx1/age", "36")), "the document did not change")
        XCTAssertNil(subscriber.feed(event("put", "/-Nx3/age", "7")), "a dropped record changed, the answer did not")
        XCTAssertNil(subscriber.feed(event("put", "/-Nx9", "null")), "deleting nothing")
        XCTAssertNil(subscriber.feed(.keepAlive))
        let next = try XCTUnwrap(subscriber.feed(event("put", "/-Nx2/name", #""Bee""#)))
        XCTAssertEqual(next.id, 2, "ids count events sent, not events received")
    }

    func testCancelEndsTheStreamWithAProblem() throws {
        var subscriber = try Subscriber(
            route: "users", context: [JSONMember(key: "route", value: .string("users"))])
        subscriber.feed(event("put", "/", initial))
        let ended = subscriber.stream.received(.cancel(reason: nil))
        guard case .end(let error) = ended else { return XCTFail("expected the end, got \(ended)") }
        XCTAssertEqual(error.id, 2)
        XCTAssertEqual(error.name, "error")
        XCTAssertEqual(
            error.text,
            #"{"type":"https://reshape.dev/problems/upstream-stream-cancelled","title":"Upstream stream cancelled","#
                + #""status":502,"detail":"the upstream cancelled the stream","code":"upstream-stream-cancelled","#
                + #""route":"users"}"#)
        XCTAssertTrue(subscriber.stream.isEnded)
    }

    func testAuthRevokedEndsTheStreamEvenBeforeASnapshot() throws {
        var stream = LiveStream(normalize: try normalize(route: "users"))
        let ended = stream.received(.authRevoked(reason: "credential is no longer valid"))
        guard case .end(let error) = ended else { return XCTFail("expected the end, got \(ended)") }
        XCTAssertEqual(error.id, 1)
        guard case .error(let problem) = error.kind else { return XCTFail("not an error: \(error.name)") }
        XCTAssertEqual(problem.code, "upstream-auth-revoked")
        XCTAssertEqual(
            problem.detail,
            "the upstream ended the stream: its credential is no longer valid "
                + "(credential is no longer valid)")
        XCTAssertTrue(stream.isEnded)
    }

    func testARecordMadeInvalidUnderFailEndsTheStream() throws {
        var subscriber = try Subscriber(
            route: "strict-users", context: [JSONMember(key: "route", value: .string("strict-users"))])
        XCTAssertEqual(subscriber.feed(event("put", "/", #"{"-Nx1":{"name":"Ada"}}"#))?.name, "snapshot")
        let error = try XCTUnwrap(subscriber.feed(event("put", "/-Nx1/name", #""""#)))
        XCTAssertEqual(error.name, "error")
        XCTAssertEqual(error.id, 2)
        guard case .error(let problem) = error.kind else { return XCTFail("not an error: \(error.name)") }
        XCTAssertEqual(problem.code, "validation-failed")
        XCTAssertEqual(problem.status, 502)
        // The pipeline's problem is sent as it was thrown: the server's (and replay's) names its
        // route itself, as the plain GET's does; context is for the stream's own problems.
        XCTAssertTrue(
            error.text.contains(#""code":"validation-failed"}"#), "no context added: \(error.text)")
        XCTAssertTrue(subscriber.stream.isEnded)
    }

    func testAFirstPutThatFailsValidationEndsTheStreamWithoutASnapshot() throws {
        var stream = LiveStream(normalize: try normalize(route: "strict-users"))
        guard case .end(let error) = stream.received(event("put", "/", #"{"-Nx1":{"age":3}}"#)) else {
            return XCTFail("expected the end")
        }
        XCTAssertEqual(error.id, 1)
        XCTAssertEqual(error.name, "error")
    }

    func testAReconnectGivesAFreshSnapshotNotAPatch() throws {
        var subscriber = try Subscriber(route: "users")
        subscriber.feed(event("put", "/", initial))
        subscriber.feed(event("patch", "/-Nx2", #"{"age":32}"#))
        guard case .none = subscriber.reconnect() else { return XCTFail("a reconnect sends nothing") }
        XCTAssertNil(subscriber.stream.answer)
        XCTAssertNil(subscriber.feed(.keepAlive))
        let fresh = try XCTUnwrap(subscriber.feed(event("put", "/", #"{"-Nx2":{"name":"Bea","age":33}}"#)))
        XCTAssertEqual(fresh.name, "snapshot")
        XCTAssertEqual(fresh.id, 3, "ids go on across the reconnect")
        XCTAssertEqual(fresh.text, #"{"objects":[{"objectId":"-Nx2","name":"Bea","age":33}]}"#)
        let after = try XCTUnwrap(subscriber.feed(event("put", "/-Nx2/age", "34")))
        XCTAssertEqual(after.text, #"[{"op":"replace","path":"/objects/0/age","value":34}]"#)
    }

    func testAnEventTooDeepForTheDocumentEndsTheStream() throws {
        var subscriber = try Subscriber(route: "users")
        subscriber.feed(event("put", "/", initial))
        let deep = FirebaseEvent.put(path: Array(repeating: "a", count: FirebaseDocument.maxDepth + 1), data: .null)
        let error = try XCTUnwrap(subscriber.feed(deep))
        guard case .error(let problem) = error.kind else { return XCTFail("not an error: \(error.name)") }
        XCTAssertEqual(problem.code, "upstream-stream-too-deep")
        XCTAssertTrue(subscriber.stream.isEnded)
    }

    /// Random puts, patches and deletes on a small collection: after every event, the snapshot
    /// with every patch applied is byte for byte the route's answer for the upstream document.
    func testRandomChangesKeepTheSubscriberExact() throws {
        var random = SplitMix64(seed: 20)
        var subscriber = try Subscriber(route: "users")
        subscriber.feed(event("put", "/", initial))
        let keys = (1...8).map { "-Nx\($0)" }
        let names = [#""Ada""#, #""Bea""#, #""""#, "7"]
        for _ in 0..<400 {
            let key = keys.randomElement(using: &random)!
            let name = names.randomElement(using: &random)!
            let age = Int.random(in: -1...40, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: subscriber.feed(event("put", "/\(key)", #"{"name":\#(name),"age":\#(age)}"#))
            case 1: subscriber.feed(event("patch", "/\(key)", #"{"age":\#(age)}"#))
            case 2: subscriber.feed(event("put", "/\(key)/name", name))
            case 3: subscriber.feed(event("put", "/\(key)", "null"))
            default: subscriber.feed(event("patch", "/", #"{"\#(key)":{"name":\#(name)}}"#))
            }
        }
        XCTAssertFalse(subscriber.stream.isEnded)
        XCTAssertEqual(subscriber.ids, Array(1...subscriber.ids.count))
        XCTAssertGreaterThan(subscriber.ids.count, 100, "most random events change the answer")
    }

    func testAnEventAfterTheEndTraps() throws {
        var stream = LiveStream(normalize: try normalize(route: "users"))
        _ = stream.received(.cancel(reason: nil))
        try expectTrap(containing: "impossible event 'put' in state 'ended'") {
            _ = stream.received(event("put", "/", initial))
        }
    }

    func testAReconnectAfterTheEndTraps() throws {
        var stream = LiveStream(normalize: try normalize(route: "users"))
        _ = stream.received(.authRevoked(reason: nil))
        try expectTrap(containing: "impossible event 'reconnected' in state 'ended'") { _ = stream.reconnected() }
    }
}
