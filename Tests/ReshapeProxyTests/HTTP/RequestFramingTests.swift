import ReshapeRules
import XCTest

@testable import ReshapeProxy

final class RequestFramingTests: XCTestCase {
    private func ambiguity(_ pairs: [(String, String)]) -> String? {
        RequestFraming.ambiguity(in: pairs.map { NameValue(name: $0.0, value: $0.1) })
    }

    func testOrdinaryFramingIsAccepted() {
        XCTAssertNil(ambiguity([]))
        XCTAssertNil(ambiguity([("Content-Length", "12")]))
        XCTAssertNil(ambiguity([("Transfer-Encoding", "chunked")]))
        XCTAssertNil(ambiguity([("Transfer-Encoding", "gzip, chunked")]))
    }

    func testAmbiguousFramingIsRefused() {
        XCTAssertNotNil(ambiguity([("Content-Length", "3"), ("Transfer-Encoding", "chunked")]))
        XCTAssertNotNil(ambiguity([("CONTENT-LENGTH", "3"), ("content-length", "3")]))
        XCTAssertNotNil(ambiguity([("Content-Length", "3, 4")]))
        XCTAssertNotNil(ambiguity([("Content-Length", "-1")]))
        XCTAssertNotNil(ambiguity([("Content-Length", "")]))
        XCTAssertNotNil(ambiguity([("Transfer-Encoding", "chunked, gzip")]))
        XCTAssertNotNil(ambiguity([("Transfer-Encoding", "identity")]))
        XCTAssertNotNil(ambiguity([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")]))
    }

    /// The target splits at its first `?`, byte-wise, whatever characters surround it.
    func testTargetSplitsAtTheFirstQuestionMark() {
        let cases: [(target: String, path: String, query: String)] = [
            ("/users", "/users", ""), ("/users?", "/users", ""), ("/users?a=1?b", "/users", "a=1?b"),
            ("/é?ü=1", "/é", "ü=1"), ("/e\u{301}?q", "/e\u{301}", "q"), ("?x", "", "x"), ("", "", ""),
            ("/users?\u{301}x=1", "/users", "\u{301}x=1"),  // a combining mark does not hide the `?`
        ]
        for (target, path, query) in cases {
            let request = HTTPRequest(method: "GET", target: target)
            XCTAssertEqual(String(request.path), path, target)
            XCTAssertEqual(String(request.rawQuery), query, target)
        }
    }
}
