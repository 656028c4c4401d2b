import ReshapeProxy
import XCTest

/// `--trusted-proxies` ranges and the client address they let `X-Forwarded-For` give.
final class ClientAddressTests: XCTestCase {
    func testRangesMatchIPv4IPv6AndMappedAddresses() throws {
        let ten = try XCTUnwrap(AddressRange("10.0.0.0/8"))
        XCTAssertTrue(ten.contains("10.1.2.3"))
        XCTAssertTrue(ten.contains("::ffff:10.1.2.3"))
        XCTAssertFalse(ten.contains("11.0.0.1"))
        let six = try XCTUnwrap(AddressRange("fd00::/8"))
        XCTAssertTrue(six.contains("fd12:3456::1"))
        XCTAssertFalse(six.contains("fe80::1"))
        let one = try XCTUnwrap(AddressRange("::1"))
        XCTAssertTrue(one.contains("::1"))
        XCTAssertFalse(one.contains("::2"))
        XCTAssertTrue(try XCTUnwrap(AddressRange("192.168.1.7")).contains("192.168.1.7"))
        XCTAssertTrue(try XCTUnwrap(AddressRange("0.0.0.0/0")).contains("203.0.113.9"))
        for bad in ["10.0.0.0/33", "10.0.0", "300.1.1.1", "fd00::/129", "::1::2", "example.com", "", "1.2.3.4/x"] {
            XCTAssertNil(AddressRange(bad), bad)
        }
    }

    func testTheFirstUntrustedHopFromTheRight() throws {
        let trusted = [try XCTUnwrap(AddressRange("10.0.0.0/8"))]
        // Untrusted peer: its header is not believed.
        XCTAssertEqual(ClientAddress.of(peer: "203.0.113.5", forwardedFor: "1.1.1.1", trusted: trusted), "203.0.113.5")
        // No trusted proxies: the peer.
        XCTAssertEqual(ClientAddress.of(peer: "10.0.0.2", forwardedFor: "1.1.1.1", trusted: []), "10.0.0.2")
        // A client's forged left part is skipped: the rightmost untrusted is the client.
        XCTAssertEqual(
            ClientAddress.of(peer: "10.0.0.2", forwardedFor: "6.6.6.6, 198.51.100.7, 10.0.0.9", trusted: trusted),
            "198.51.100.7")
        // Every hop trusted: the farthest one.
        XCTAssertEqual(
            ClientAddress.of(peer: "10.0.0.2", forwardedFor: "10.0.0.3,10.0.0.4", trusted: trusted), "10.0.0.3")
        XCTAssertEqual(ClientAddress.of(peer: "10.0.0.2", forwardedFor: nil, trusted: trusted), "10.0.0.2")
    }
}
