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

    func testIPv6IsKeyedByItsSlash64AndEntriesAreCanonical() throws {
        let trusted = [try XCTUnwrap(AddressRange("10.0.0.0/8"))]
        // Rotating within a /64 gives one key; another /64 another.
        let one = ClientAddress.of(peer: "2001:db8:0:1::1", forwardedFor: nil, trusted: [])
        XCTAssertEqual(one, "2001:db8:0:1::/64")
        XCTAssertEqual(ClientAddress.of(peer: "2001:db8:0:1:ffff:2:3:4", forwardedFor: nil, trusted: []), one)
        XCTAssertNotEqual(ClientAddress.of(peer: "2001:db8:0:2::1", forwardedFor: nil, trusted: []), one)
        // A mapped IPv4 peer is its IPv4 address.
        XCTAssertEqual(ClientAddress.of(peer: "::ffff:198.51.100.7", forwardedFor: nil, trusted: []), "198.51.100.7")
        // X-Forwarded-For entries with ports or brackets: one key per client, not per connection.
        for entry in ["198.51.100.7", "198.51.100.7:5123", "198.51.100.7:61000", "::ffff:198.51.100.7"] {
            XCTAssertEqual(
                ClientAddress.of(peer: "10.0.0.2", forwardedFor: "\(entry), 10.0.0.9", trusted: trusted),
                "198.51.100.7", entry)
        }
        for entry in ["[2001:db8:0:1::5]:443", "[2001:db8:0:1::6]", "2001:DB8:0:1::7"] {
            XCTAssertEqual(ClientAddress.of(peer: "10.0.0.2", forwardedFor: entry, trusted: trusted), one, entry)
        }
        // Not an address: nothing to its left is believed; counted under the proxy that reported it.
        XCTAssertEqual(
            ClientAddress.of(peer: "10.0.0.2", forwardedFor: "6.6.6.6, unknown, 10.0.0.9", trusted: trusted),
            "10.0.0.9")
        XCTAssertEqual(ClientAddress.of(peer: "10.0.0.2", forwardedFor: "1.2.3.4:x", trusted: trusted), "10.0.0.2")
        XCTAssertEqual(ClientAddress.of(peer: "10.0.0.2", forwardedFor: "[::1]:", trusted: trusted), "10.0.0.2")
    }

    func testAPeerAlreadyWrittenAsItsKeyIsItsOwnKey() {
        // Without trusted proxies a canonical IPv4 peer is returned as it is; anything else is
        // parsed: both must give what the parse gives.
        for peer in [
            "127.0.0.1", "0.0.0.0", "255.255.255.255", "10.0.0.2", "192.168.100.20", "256.1.1.1", "1.2.3.256",
            "01.2.3.4", "1.2.3.04", "00.0.0.0", "1.2.3", "1.2.3.4.5", "1..2.3", ".1.2.3", "1.2.3.", "", "::1",
            "1.2.3.4:80", "::ffff:10.0.0.1", "2001:db8::1", "999.0.0.0", "1.2.3.4 ", "١.2.3.4",
        ] {
            XCTAssertEqual(
                ClientAddress.of(peer: peer, forwardedFor: nil, trusted: []), ClientAddress.key(peer) ?? peer, peer)
        }
    }
}
