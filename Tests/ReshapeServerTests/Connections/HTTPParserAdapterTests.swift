import ReshapeProxy
import XCTest

@testable import ReshapeServer

/// What the parser adapter tells the connection machine of a request head: a read's pieces
/// counted together, and as soon as they alone pass a limit.
final class HTTPParserAdapterTests: XCTestCase {
    private func events(
        _ text: String, refusing: @escaping (HTTPConnectionStateMachine.Event) -> Bool = { _ in false }
    ) -> [HTTPConnectionStateMachine.Event] {
        var seen: [HTTPConnectionStateMachine.Event] = []
        let adapter = HTTPParserAdapter(limits: ServerLimits()) { event in
            seen.append(event)
            return !refusing(event)
        }
        Array(text.utf8).withUnsafeBytes { adapter.feed($0) }
        return seen
    }

    private func counts(_ events: [HTTPConnectionStateMachine.Event]) -> [String] {
        events.compactMap {
            switch $0 {
            case .urlBytes(let bytes): "url \(bytes)"
            case .headerBytes(let fields, let bytes): "headers \(fields) \(bytes)"
            default: nil
            }
        }
    }

    func testAHeadIsCountedInOneEventBeforeItCompletes() {
        let seen = events("GET /users HTTP/1.1\r\nHost: a\r\nAccept: b\r\n\r\n")
        XCTAssertEqual(counts(seen), ["url 6", "headers 2 12"])
        guard seen.count == 5 else { return XCTFail("\(seen)") }
        guard case .headersComplete = seen[3] else { return XCTFail("\(seen)") }
        guard case .messageComplete = seen[4] else { return XCTFail("\(seen)") }
    }

    func testPiecesPastALimitAreDeliveredAtOnce() {
        // 150 fields in one read: the machine hears of them once there are more than 100, and
        // the adapter reads no further once it refuses.
        let head = "GET /users HTTP/1.1\r\n" + (0..<150).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        let seen = events(head) { event in
            if case .headerBytes(let fields, _) = event { return fields > ServerLimits().maxHeaderCount }
            return false
        }
        XCTAssertEqual(counts(seen).count, 2, "\(seen)")
        guard case .headerBytes(let fields, _) = seen.last else { return XCTFail("\(seen)") }
        XCTAssertEqual(fields, ServerLimits().maxHeaderCount + 1)
    }

    func testAnUnfinishedHeadIsCountedAtTheEndOfTheRead() {
        let seen = events("GET /users HTTP/1.1\r\nHost: a\r\n")
        XCTAssertEqual(counts(seen), ["url 6", "headers 1 5"])
    }
}
