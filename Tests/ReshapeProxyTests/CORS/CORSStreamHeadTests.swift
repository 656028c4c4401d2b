import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// A live stream's head carries the headers its request's answer adds (CORS), also when it
/// waits behind an earlier answer.
final class CORSStreamHeadTests: XCTestCase {
    func testAStreamHeadCarriesItsExtraHeadersInTurn() {
        var machine = HTTPConnectionStateMachine(limits: ServerLimits())
        for _ in 0..<2 {
            _ =
                machine.handle(.messageBegan) + machine.handle(.headersComplete(RequestHead()))
                + machine.handle(.messageComplete(HTTPRequest(method: "GET", target: "/a")))
        }
        let cors = CORSAnswer.allowed(origin: "https://app.example.com", credentials: true, exposeHeaders: [])
        XCTAssertEqual(machine.handle(.streamReady(id: 1, headers: cors.streamHeaders())), [], "request 0 is first")
        let actions = machine.handle(.responseReady(id: 0, HTTPResponse.json(200, Array("1".utf8))))
        let heads = actions.compactMap { action -> String? in
            guard case .write(let head, _, _) = action else { return nil }
            return String(decoding: head, as: UTF8.self)
        }
        XCTAssertEqual(heads.count, 2)
        XCTAssertTrue(heads[1].contains("Content-Type: text/event-stream\r\n"), heads[1])
        XCTAssertTrue(heads[1].contains("Vary: Origin\r\n"))
        XCTAssertTrue(heads[1].contains("Access-Control-Allow-Origin: https://app.example.com\r\n"))
        XCTAssertTrue(heads[1].contains("Access-Control-Allow-Credentials: true\r\n"))
        XCTAssertFalse(heads[1].contains("Access-Control-Expose-Headers"), "nothing to expose on a stream head")
    }
}
