import XCTest

@testable import ReshapeProxy

final class ByteAppendingTests: XCTestCase {
    func testDecimalsAreWhatStringWrites() {
        for value in [0, 7, 10, 200, 304, 3167, -1, -4096, Int.max, Int.min] {
            var bytes: [UInt8] = Array("x".utf8)
            bytes.appendDecimal(value)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "x\(value)")
        }
    }

    func testTextIsItsUTF8() {
        var bytes: [UInt8] = []
        bytes.appendUTF8("Łódź ")
        bytes.appendUTF8("a" + String(repeating: "é", count: 40))  // a native string on the heap
        bytes.appendUTF8("")
        XCTAssertEqual(bytes, Array("Łódź ".utf8) + Array(("a" + String(repeating: "é", count: 40)).utf8))
    }

    func testAResponseHeadIsWrittenAsBefore() {
        let response = HTTPResponse(
            status: 200,
            headers: [.init(name: "Content-Type", value: "application/json"), .init(name: "X-Ü", value: "ö")],
            body: Array("{}".utf8))
        XCTAssertEqual(
            String(
                decoding: response.serialized(headOnly: false, keepAlive: false, date: "Sat, 28 Nov 2026 17:00:00 GMT"),
                as: UTF8.self),
            "HTTP/1.1 200 OK\r\nDate: Sat, 28 Nov 2026 17:00:00 GMT\r\nContent-Type: application/json\r\nX-Ü: ö\r\n"
                + "Content-Length: 2\r\nConnection: close\r\n\r\n{}")
        XCTAssertEqual(
            String(decoding: HTTPResponse(status: 304).head(bodyBytes: 0, keepAlive: true), as: UTF8.self),
            "HTTP/1.1 304 Not Modified\r\n\r\n")
    }

    func testHeaderNamesCompareIgnoringASCIICaseOnly() {
        XCTAssertTrue(RequestFraming.equalsIgnoringCase("If-None-Match", "if-none-match"))
        XCTAssertTrue(RequestFraming.equalsIgnoringCase("", ""))
        XCTAssertFalse(RequestFraming.equalsIgnoringCase("If-None-Match", "If-None-Matc"))
        XCTAssertFalse(RequestFraming.equalsIgnoringCase("X-É", "X-é"), "only ASCII letters fold")
        XCTAssertFalse(RequestFraming.equalsIgnoringCase("a[", "A{"), "[ and { are not a letter pair")
    }
}
