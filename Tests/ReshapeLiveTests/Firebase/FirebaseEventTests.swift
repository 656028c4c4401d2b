import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class FirebaseEventTests: XCTestCase {
    private func event(_ name: String, _ data: String) throws -> FirebaseEvent {
        try FirebaseEvent(ServerSentEvent(name: name, data: data))
    }

    private func failure(_ name: String, _ data: String) -> FirebaseEvent.Failure? {
        do {
            _ = try FirebaseEvent(ServerSentEvent(name: name, data: data))
            return nil
        } catch {
            return error
        }
    }

    func testPutAtTheRootAndBelow() throws {
        XCTAssertEqual(
            try event("put", #"{"path": "/", "data": {"a": 1, "b": 2}}"#),
            .put(path: [], data: try JSON(parsing: #"{"a": 1, "b": 2}"#)))
        XCTAssertEqual(
            try event("put", #"{"path": "/c/-Nx1//d/", "data": null}"#), .put(path: ["c", "-Nx1", "d"], data: .null))
        XCTAssertEqual(try event("put", #"{"data": "x", "path": ""}"#), .put(path: [], data: .string("x")))
    }

    func testPatchCarriesAnObject() throws {
        XCTAssertEqual(
            try event("patch", #"{"path": "/c", "data": {"foo": 3, "baz": null}}"#),
            .patch(path: ["c"], data: JSONObject(["foo": .number(JSONNumber(3)), "baz": .null])))
        XCTAssertEqual(
            failure("patch", #"{"path": "/c", "data": [1]}"#),
            .malformed(event: "patch", message: "\"data\" of a patch is not an object"))
    }

    func testMalformedPutsSayWhatIsWrong() {
        XCTAssertEqual(
            failure("put", #"{"data": 1}"#), .malformed(event: "put", message: "\"path\" is missing or not a string"))
        XCTAssertEqual(
            failure("put", #"{"path": 1, "data": 1}"#),
            .malformed(event: "put", message: "\"path\" is missing or not a string"))
        XCTAssertEqual(failure("put", #"{"path": "/"}"#), .malformed(event: "put", message: "\"data\" is missing"))
        XCTAssertEqual(
            failure("put", "[1]"), .malformed(event: "put", message: "data is not an object with \"path\" and \"data\"")
        )
        guard case .malformed(let name, let message)? = failure("put", #"{"path": "/", "data": }"#) else {
            return XCTFail("not JSON must be malformed")
        }
        XCTAssertEqual(name, "put")
        XCTAssertTrue(message.hasPrefix("data is not JSON: 1:"), message)
    }

    func testEndingAndKeepAliveEvents() throws {
        XCTAssertEqual(try event("keep-alive", "null"), .keepAlive)
        XCTAssertEqual(try event("cancel", "null"), .cancel(reason: nil))
        XCTAssertEqual(try event("cancel", "Permission denied"), .cancel(reason: "Permission denied"))
        XCTAssertEqual(
            try event("auth_revoked", #""credential is no longer valid""#),
            .authRevoked(reason: "credential is no longer valid"))
        XCTAssertEqual(try event("auth_revoked", ""), .authRevoked(reason: nil))
    }

    func testUnknownEventNames() {
        XCTAssertEqual(failure("message", "{}"), .unknownEvent("message"))
        XCTAssertEqual(failure("Put", "{}"), .unknownEvent("Put"))
    }

    func testPathTokens() {
        XCTAssertEqual(FirebaseEvent.pathTokens("/"), [])
        XCTAssertEqual(FirebaseEvent.pathTokens("/a/b"), ["a", "b"])
        XCTAssertEqual(FirebaseEvent.pathTokens("a//b/"), ["a", "b"])
        XCTAssertEqual(FirebaseEvent.pathTokens("/é/%20"), ["é", "%20"])
    }
}
