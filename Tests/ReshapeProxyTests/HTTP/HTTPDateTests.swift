import Foundation
import XCTest

@testable import ReshapeProxy

/// IMF-fixdate, checked against Foundation's formatter over many dates.
final class HTTPDateTests: XCTestCase {
    func testKnownDates() {
        XCTAssertEqual(HTTPDate.imfFixdate(unixSeconds: 0), "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(HTTPDate.imfFixdate(unixSeconds: 784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.imfFixdate(unixSeconds: 951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT")
        XCTAssertEqual(HTTPDate.imfFixdate(unixSeconds: -5), "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    func testAgreesWithFoundationOverManyDates() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var seconds = 0
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            XCTAssertEqual(
                HTTPDate.imfFixdate(unixSeconds: seconds),
                formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
            seconds += Int.random(in: 1...2_000_000, using: &generator)
        }
    }
}
