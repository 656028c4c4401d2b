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
package enum ClientAddress {
    package static func of(peer: String, forwardedFor: String?, trusted: [AddressRange]) -> String {
        guard !trusted.isEmpty, trusted.contains(where: { $0.contains(peer) }), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !trusted.contains(where: { $0.contains(hop) }) {
            return hop
        }
        // Every hop is a trusted proxy: the farthest one is the client as far as anyone knows.
        return hops.first ?? peer
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
