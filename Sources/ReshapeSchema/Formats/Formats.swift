/// Checks one `format` value; only consulted when format assertion is on.
typealias FormatCheck = @Sendable (String) -> Bool

/// `format` checkers, written against the RFCs the draft 2020-12 spec names, on bytes and
/// without Foundation.
enum Formats {
    /// The checker for a format name, or nil for formats we do not know (those always pass).
    static func check(named name: String) -> FormatCheck? {
        switch name {
        case "date-time": return { DateTimeFormats.isDateTime(Array($0.utf8)) }
        case "date": return { DateTimeFormats.isDate(Array($0.utf8)[...]) }
        case "time": return { DateTimeFormats.isTime(Array($0.utf8)[...]) }
        case "duration": return { DateTimeFormats.isDuration(Array($0.utf8)) }
        case "email": return { EmailFormat.isEmail($0, international: false) }
        case "idn-email": return { EmailFormat.isEmail($0, international: true) }
        case "hostname": return { HostFormats.isHostname($0) }
        case "idn-hostname": return { HostFormats.isIDNHostname($0) }
        case "ipv4": return { HostFormats.isIPv4(Array($0.utf8)[...]) }
        case "ipv6": return { HostFormats.isIPv6($0) }
        case "uri": return { URIFormats.isURI($0, international: false, relative: false) }
        case "uri-reference": return { URIFormats.isURI($0, international: false, relative: true) }
        case "iri": return { URIFormats.isURI($0, international: true, relative: false) }
        case "iri-reference": return { URIFormats.isURI($0, international: true, relative: true) }
        case "uri-template": return { URIFormats.isURITemplate($0) }
        case "uuid": return { isUUID(Array($0.utf8)) }
        case "regex": return { CompiledPattern.isValid($0) }
        case "json-pointer": return { isJSONPointer(Array($0.utf8)[...]) }
        case "relative-json-pointer": return { isRelativeJSONPointer(Array($0.utf8)) }
        default: return nil
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isHex(_ b: UInt8) -> Bool {
        isDigit(b) || (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "f"))
    }
    static func isAlpha(_ b: UInt8) -> Bool { b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z") }

    /// RFC 4122 textual form: 8-4-4-4-12 hex digits.
    static func isUUID(_ s: [UInt8]) -> Bool {
        guard s.count == 36 else { return false }
        for (i, b) in s.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else if !isHex(b) {
                return false
            }
        }
        return true
    }

    /// RFC 6901: empty, or `/`-prefixed tokens where `~` is followed by `0` or `1`.
    static func isJSONPointer(_ s: ArraySlice<UInt8>) -> Bool {
        if s.isEmpty { return true }
        guard s.first == UInt8(ascii: "/") else { return false }
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "~") {
                guard i + 1 < s.endIndex, s[i + 1] == UInt8(ascii: "0") || s[i + 1] == UInt8(ascii: "1") else {
                    return false
                }
                i += 1
            }
            i += 1
        }
        return true
    }

    /// draft-bhutton-relative-json-pointer: a non-negative integer (no leading zeros), an
    /// optional `+n`/`-n` index adjustment, then `#` or a JSON Pointer.
    static func isRelativeJSONPointer(_ s: [UInt8]) -> Bool {
        var i = 0
        while i < s.count, isDigit(s[i]) { i += 1 }
        guard i > 0, i == 1 || s[0] != UInt8(ascii: "0") else { return false }
        if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            let start = i + 1
            i = start
            while i < s.count, isDigit(s[i]) { i += 1 }
            guard i > start, i == start + 1 || s[start] != UInt8(ascii: "0") else { return false }
        }
        if i == s.count { return true }
        if s[i] == UInt8(ascii: "#") { return i + 1 == s.count }
        return isJSONPointer(s[i...])
    }
}
