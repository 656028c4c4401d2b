// Base64url without padding (RFC 4648 §5), the encoding of every part of a JWS and of a JWK's
// numbers. Written here: the demo upstream depends on none of Reshape's modules.

enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            // 3 bytes make 4 characters; a last group of 1 or 2 bytes makes 2 or 3, unpadded.
            for position in 0...count {
                out.append(alphabet[Int((group >> (18 - 6 * UInt32(position))) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func encode(_ text: String) -> String { encode(Array(text.utf8)) }
}
