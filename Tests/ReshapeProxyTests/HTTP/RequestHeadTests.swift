import ReshapeRules
import XCTest

@testable import ReshapeProxy

final class RequestHeadTests: XCTestCase {
    func testRequestHeadReadsTheFraming() {
        let head = RequestHead(
            headers: [
                NameValue(name: "transfer-encoding", value: "chunked"),
                NameValue(name: "EXPECT", value: " 100-continue "),
            ],
            versionMajor: 1, versionMinor: 1)
        XCTAssertEqual(head, RequestHead(contentLength: nil, chunked: true, expectsContinue: true))
        XCTAssertTrue(head.bodyExpected)
        let twoLengths = RequestHead(
            headers: [
                NameValue(name: "Content-Length", value: "3"),
                NameValue(name: "Content-Length", value: "4"),
            ],
            versionMajor: 1, versionMinor: 1)
        XCTAssertNil(twoLengths.contentLength, "ambiguous: refused at the message's end, promises nothing here")
        XCTAssertFalse(
            RequestHead(
                headers: [
                    NameValue(name: "Expect", value: "something-else"),
                    NameValue(name: "Content-Length", value: "3"),
                ],
                versionMajor: 1, versionMinor: 1
            ).expectsContinue)
    }

    func testRequestHeadKnowsAnAdminTarget() {
        func head(_ target: String) -> RequestHead {
            RequestHead(headers: [], versionMajor: 1, versionMinor: 1, target: Array(target.utf8))
        }
        XCTAssertTrue(head("/_reshape/live").toAdmin)
        XCTAssertTrue(head("/_reshape/cache/purge?route=users").toAdmin)
        XCTAssertFalse(head("/users").toAdmin)
        XCTAssertFalse(head("/users/_reshape/live").toAdmin)
        XCTAssertFalse(head("/_reshape").toAdmin, "the router's prefix: not an admin endpoint")
    }
}
