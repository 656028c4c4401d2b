/// One `--trusted-proxies` entry: an IPv4 or IPv6 network (`10.0.0.0/8`, `fd00::/8`), or one
/// address. Addresses are compared as 16 bytes, IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`),
/// so a proxy's address matches however the socket reports it.
package struct AddressRange: Sendable, Equatable {
    let network: [UInt8]
    let prefixLength: Int

    /// `CIDR` or an address; nil when it is neither.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.bytes(of: String(parts[0])) else { return nil }
        let isIPv4 = !parts[0].contains(":")
        let maxLength = isIPv4 ? 32 : 128
        var length = maxLength
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...maxLength).contains(given) else { return nil }
            length = given
        }
        prefixLength = isIPv4 ? length + 96 : length
        network = Self.masked(address, prefixLength)
    }

    /// Whether `address` (text as a socket or `X-Forwarded-For` gives it) is in the range.
    package func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    /// Whether an address's 16 bytes are in the range.
    func contains(bytes: [UInt8]) -> Bool { Self.masked(bytes, prefixLength) == network }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(length - index * 8, 0), 8)
            return bits == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
    }

    /// An address's 16 bytes; nil when the text is not an address.
    static func bytes(of text: String) -> [UInt8]? {
        if !text.contains(":") {
            guard let four = ipv4(Substring(text)) else { return nil }
            return [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + four
        }
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        var tail: [UInt8] = []
        // An IPv4 tail (`::ffff:1.2.3.4`) counts for two groups.
        if let lastColon = text.lastIndex(of: ":"), text[lastColon...].contains(".") {
            guard let four = ipv4(text[text.index(after: lastColon)...]) else { return nil }
            tail = four
            text = text[...lastColon]
            if text.hasSuffix(":"), !text.hasSuffix("::") { text = text.dropLast() }
        }
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                out += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 {
            let all = head + tail
            return all.count == 16 ? all : nil
        }
        guard let rest = groups(halves[1]) else { return nil }
        let given = head.count + rest.count + tail.count
        guard given < 16 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - given) + rest + tail
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part) else {
                return nil
            }
            out.append(value)
        }
        return out
    }
}

/// The address a request is counted under as `client-address`: the TCP peer, or, when the
/// peer is a trusted proxy, the first address in `X-Forwarded-For` from the right that is not
/// one (each proxy appends the address it was reached from; only the trusted ones' entries can
/// be believed, and a client can write anything to the left of them).
///
/// The key is the address's canonical form, so one client has one bucket however it is
/// written: an IPv4 address (also IPv4-mapped, or with a `:port`) as `a.b.c.d`, an IPv6 one
/// (also `[v6]` or `[v6]:port`) by its /64 prefix, `2001:db8:0:1::/64`: a host is usually given
/// a whole /64, and could otherwise take a fresh address, and a fresh bucket, per request.
package enum ClientAddress {
    package static func of(peer: String, forwardedFor: String?, trusted: [AddressRange]) -> String {
        let peerKey = key(peer) ?? peer
        guard !trusted.isEmpty, trusted.contains(where: { $0.contains(peer) }), let forwardedFor else {
            return peerKey
        }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
        // The trusted proxy that reported the hop being read: the peer, then each trusted hop.
        var reporter = peerKey
        for hop in hops.reversed() {
            // Not an address (`unknown`, garbage): nothing left of it can be believed, and it
            // is no key of its own; the request is counted under the proxy that reported it.
            guard let address = bytes(hop), let hopKey = key(address) else { return reporter }
            if !trusted.contains(where: { $0.contains(bytes: address) }) { return hopKey }
            reporter = hopKey
        }
        // Every hop is a trusted proxy: the farthest one is the client as far as anyone knows.
        return reporter
    }

    /// True when `text` is an IPv4 address as its key writes it: four decimal numbers up to
    /// 255, without leading zeros, joined by dots.
    private static func isCanonicalIPv4(_ text: String) -> Bool {
        var dots = 0
        var digits = 0
        var value = 0
        var leadingZero = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return false }
                dots += 1
                digits = 0
                value = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), !leadingZero || digits == 0 else {
                return false
            }
            leadingZero = digits == 0 && byte == UInt8(ascii: "0")
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            guard value <= 255 else { return false }
        }
        return dots == 3 && digits > 0
    }

    /// The key of an address as text (a socket's, or an `X-Forwarded-For` entry); nil when it
    /// is not an address.
    package static func key(_ text: String) -> String? {
        // A socket's IPv4 address is already written as its key: no parse.
        if isCanonicalIPv4(text) { return text }
        return bytes(text).flatMap(key)
    }

    private static func key(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map { String($0) }.joined(separator: ".")
        }
        let groups = (0..<4).map { String(UInt16(bytes[$0 * 2]) << 8 | UInt16(bytes[$0 * 2 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// An entry's 16 bytes, without a port: `1.2.3.4:80`, `[2001:db8::1]:80`, `[2001:db8::1]`.
    private static func bytes(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let port = text[text.index(after: close)...]
            guard port.isEmpty || (port.hasPrefix(":") && port.count > 1 && port.dropFirst().allSatisfy(\.isNumber))
            else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains("."), let colon = text.firstIndex(of: ":"),
            text.firstIndex(of: ":") == text.lastIndex(of: ":")
        {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isNumber) else { return nil }
            text = text[..<colon]
        }
        return AddressRange.bytes(of: String(text))
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
