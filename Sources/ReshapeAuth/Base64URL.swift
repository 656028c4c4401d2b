/// RFC 4648 §5 base64url without padding, as JOSE writes it (RFC 7515 §2). Strict: any byte
/// outside the alphabet, padding, or non-zero bits left over make the text invalid, so one
/// token has one encoding.
enum Base64URL {
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = Int8(index)
        }
        return table
    }()

    /// The bytes `text` encodes; nil when it is not strict base64url.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value >= 0 else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Left-over bits must be zero: otherwise two texts would decode to the same bytes.
        return accumulator == 0 ? bytes : nil
    }
}
