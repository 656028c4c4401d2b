/// RFC 5321 mailbox (`email`), and RFC 6531's extension to Unicode (`idn-email`).
enum EmailFormat {
    static func isEmail(_ text: String, international: Bool) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = text[..<at]
        let domain = String(text[text.index(after: at)...])
        guard !local.isEmpty, !domain.isEmpty, isLocalPart(local, international: international) else { return false }
        if domain.hasPrefix("[") && domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            if literal.hasPrefix("IPv6:") { return HostFormats.isIPv6(String(literal.dropFirst(5))) }
            return HostFormats.isIPv4(Array(literal.utf8)[...])
        }
        return international ? HostFormats.isIDNHostname(domain) : HostFormats.isHostname(domain)
    }

    private static func isLocalPart(_ local: Substring, international: Bool) -> Bool {
        let scalars = Array(local.unicodeScalars)
        if scalars.first == "\"" {
            // Quoted-string: printable ASCII; `\` escapes one character.
            guard scalars.count >= 2, scalars.last == "\"" else { return false }
            var i = 1
            while i < scalars.count - 1 {
                let v = scalars[i].value
                if v == 0x5C {
                    i += 1
                    guard i < scalars.count - 1 else { return false }
                } else if v == 0x22 || (v < 0x20 && v != 0x09) || (v > 0x7E && !international) {
                    return false
                }
                i += 1
            }
            return true
        }
        // Dot-string: atoms of atext joined by single dots.
        guard scalars.first != ".", scalars.last != "." else { return false }
        var previousDot = false
        for scalar in scalars {
            if scalar == "." {
                if previousDot { return false }
                previousDot = true
                continue
            }
            previousDot = false
            if !scalar.isASCII {
                if !international { return false }
                continue
            }
            let b = UInt8(scalar.value)
            guard Formats.isAlpha(b) || Formats.isDigit(b) || "!#$%&'*+-/=?^_`{|}~".utf8.contains(b) else {
                return false
            }
        }
        return true
    }
}
