/// RFC 1123 host names, RFC 2673 IPv4 dotted quads and RFC 4291 IPv6 text.
enum HostFormats {
    static func isHostname(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        for label in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                label.allSatisfy({ Formats.isAlpha($0) || Formats.isDigit($0) || $0 == UInt8(ascii: "-") })
            else { return false }
            // "ab--" is reserved for IDNA ("xn--"); anything else there is not a valid label.
            if label.count >= 4, label[label.startIndex + 2] == UInt8(ascii: "-"),
                label[label.startIndex + 3] == UInt8(ascii: "-"),
                !(label.prefix(2).map { $0 | 0x20 } == Array("xn".utf8))
            {
                return false
            }
        }
        return true
    }

    /// Host names with Unicode labels; ASCII rules per label, non-ASCII letters allowed
    /// (a length check, not full IDNA2008).
    static func isIDNHostname(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        let normalized = text.unicodeScalars.map { scalar -> Character in
            switch scalar.value {
            case 0x3002, 0xFF0E, 0xFF61: return "."
            default: return Character(scalar)
            }
        }
        let labels = String(normalized).split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63, label.first != "-", label.last != "-" else { return false }
            for scalar in label.unicodeScalars where scalar.isASCII {
                let b = UInt8(scalar.value)
                guard Formats.isAlpha(b) || Formats.isDigit(b) || b == UInt8(ascii: "-") else { return false }
            }
        }
        return true
    }

    static func isIPv4(_ s: ArraySlice<UInt8>) -> Bool {
        let parts = s.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(Formats.isDigit),
                part.count == 1 || part.first != UInt8(ascii: "0")
            else { return false }
            let value = part.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard value <= 255 else { return false }
        }
        return true
    }

    static func isIPv6(_ text: String) -> Bool {
        var s = Array(text.utf8)[...]
        guard !s.isEmpty, s.allSatisfy({ Formats.isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
        else { return false }
        var groupsNeeded = 8
        // A trailing dotted quad stands for the last two groups.
        if let lastColon = s.lastIndex(of: UInt8(ascii: ":")), s[(lastColon + 1)...].contains(UInt8(ascii: ".")) {
            guard isIPv4(s[(lastColon + 1)...]) else { return false }
            s = s[...lastColon]
            if s.count >= 2, s[s.endIndex - 2] == UInt8(ascii: ":") {
                // "::1.2.3.4": keep the double colon whole.
            } else {
                s = s.dropLast()
            }
            groupsNeeded = 6
        }
        let text = Array(s)
        let doubles = zip(text, text.dropFirst()).filter { $0 == UInt8(ascii: ":") && $1 == UInt8(ascii: ":") }.count
        guard doubles <= 1 else { return false }
        func groups(_ part: ArraySlice<UInt8>) -> Int? {
            if part.isEmpty { return 0 }
            let pieces = part.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            for piece in pieces {
                guard (1...4).contains(piece.count), piece.allSatisfy(Formats.isHex) else { return nil }
            }
            return pieces.count
        }
        if doubles == 1 {
            let at = zip(text.indices, text.dropFirst()).first {
                text[$0.0] == UInt8(ascii: ":") && $0.1 == UInt8(ascii: ":")
            }!.0
            guard let left = groups(text[..<at]), let right = groups(text[(at + 2)...]) else { return false }
            return left + right < groupsNeeded
        }
        return groups(text[...]) == groupsNeeded
    }
}
