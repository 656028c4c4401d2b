/// RFC 3986 percent-encoding, strict in both directions.
package enum PercentEncoding {
    /// Encodes every byte except the unreserved set `A-Z a-z 0-9 - . _ ~`, so the result can
    /// change neither the host nor the path structure it is placed in.
    package static func encode(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `%XX` (and `+` as a space when `plusIsSpace`); nil for a bad escape or for
    /// bytes that are not UTF-8, which would otherwise be silently replaced.
    package static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        // Most segments and values hold nothing to decode: no copy of their bytes for those.
        let escaped = text.utf8.contains { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }
        guard escaped else { return String(text) }
        let utf8 = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%") {
                guard i + 2 < utf8.count, let high = hexValue(utf8[i + 1]), let low = hexValue(utf8[i + 2]) else {
                    return nil
                }
                output.append(high << 4 | low)
                i += 3
            } else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
                i += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    @inline(__always) static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
