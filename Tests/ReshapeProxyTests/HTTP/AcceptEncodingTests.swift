import ReshapeCompression
import XCTest

@testable import ReshapeProxy

/// `Accept-Encoding` negotiation, RFC 9110 §12.5.3.
final class AcceptEncodingTests: XCTestCase {
    private func choose(_ header: String?) -> ContentCoding { AcceptEncoding.choose(header) }

    func testNoHeaderOrNothingAcceptableIsIdentity() {
        XCTAssertEqual(choose(nil), .identity)
        XCTAssertEqual(choose(""), .identity)
        XCTAssertEqual(choose("identity"), .identity)
        XCTAssertEqual(choose("compress, deflate"), .identity)
        XCTAssertEqual(choose("gzip;q=0, br;q=0"), .identity)
        XCTAssertEqual(choose("*;q=0"), .identity)
    }

    func testHighestQValueWins() {
        XCTAssertEqual(choose("gzip"), .gzip)
        XCTAssertEqual(choose("gzip;q=1.0, br;q=0.5"), .gzip)
        XCTAssertEqual(choose("gzip;q=0.4, br;q=0.5"), .br)
        XCTAssertEqual(choose("br;q=0.9, zstd;q=0.1, gzip"), .gzip)
        XCTAssertEqual(choose("gzip;q=0.5, identity"), .identity, "identity at 1 beats gzip at 0.5")
        XCTAssertEqual(choose("gzip;q=0.5"), .gzip, "an unlisted identity ranks below a listed coding")
    }

    func testEqualQValuesGoByServerPreference() {
        XCTAssertEqual(choose("gzip, deflate, br"), .br)
        XCTAssertEqual(choose("gzip, deflate, br, zstd"), .zstd)
        XCTAssertEqual(choose("*"), ContentCoding.serverPreference[0])
        XCTAssertEqual(choose("gzip, identity"), .gzip, "identity loses a tie")
    }

    func testZeroIsNeverUsedAndTheWildcardCoversTheUnlisted() {
        XCTAssertEqual(choose("*, zstd;q=0"), .br)
        XCTAssertEqual(choose("*;q=0.5, gzip;q=0.6"), .gzip)
        XCTAssertEqual(choose("*;q=0.5, gzip;q=0.4"), .zstd)
        XCTAssertEqual(choose("br;q=0, *"), .zstd)
        XCTAssertEqual(AcceptEncoding.choose("*, zstd;q=0", supported: [.zstd]), .identity)
    }

    func testSpellingsAndMalformedElements() {
        XCTAssertEqual(choose("GZIP"), .gzip)
        XCTAssertEqual(choose("x-gzip"), .gzip)
        XCTAssertEqual(choose(" gzip ; q = 0.8 ,\tbr;q=0.7"), .gzip)
        XCTAssertEqual(choose("br;q=2, gzip;q=0.1"), .gzip, "q=2 is not a qvalue: br is ignored")
        XCTAssertEqual(choose("br;q=0.5555, gzip;q=0.1"), .gzip, "more than three decimals")
        XCTAssertEqual(choose("br;q=abc"), .identity)
        XCTAssertEqual(choose(",,;,gzip"), .gzip)
    }

    func testQValueGrammar() {
        XCTAssertEqual(AcceptEncoding.qvalue("0"), 0)
        XCTAssertEqual(AcceptEncoding.qvalue("0.5"), 500)
        XCTAssertEqual(AcceptEncoding.qvalue("0.005"), 5)
        XCTAssertEqual(AcceptEncoding.qvalue("1.000"), 1000)
        XCTAssertNil(AcceptEncoding.qvalue("1.001"))
        XCTAssertNil(AcceptEncoding.qvalue(".5"))
        XCTAssertNil(AcceptEncoding.qvalue("0.5x"))
    }
}
