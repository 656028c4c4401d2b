import ReshapeDigest
import ReshapeJSON

/// A page's `cursor`: the last record's sort values and key (keyset paging, so a record added
/// or removed before it does not shift the next page), and a digest binding it to the filters
/// and sort it was made for and to the route's fingerprint. Integrity, not secrecy: any replica
/// of the same rules accepts it; a crafted one can only choose where a page starts.
/// Text: base64url of `{"v":[values],"k":key,"t":ties}`, `.`, base64url of 16 digest bytes.
struct ViewCursor: Equatable {
    /// The record's value of each sort key, in order (null for missing).
    var values: [JSON]
    /// The record's `keyed-to-array` key, when the route has one and the record a string there.
    var key: String?
    /// Records before it with the same sort values (the tie-breaker without a key).
    var ties: Int

    func encoded(binding: String) -> String {
        var members = [JSONMember(key: "v", value: .array(values))]
        if let key { members.append(JSONMember(key: "k", value: .string(key))) }
        members.append(JSONMember(key: "t", value: .number(JSONNumber(ties))))
        let payload = JSON.object(JSONObject(members)).serialized()
        return Base64URLText.encode(payload) + "." + Base64URLText.encode(Self.digest(payload, binding))
    }

    /// The cursor `text` encodes, when its digest is the one for `binding` and it has `count`
    /// sort values; nil otherwise.
    static func decode(_ text: String, binding: String, count: Int) -> ViewCursor? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard text.utf8.count <= 4096, parts.count == 2, let payload = Base64URLText.decode(parts[0]),
            let digest = Base64URLText.decode(parts[1]), digest == Self.digest(payload, binding),
            case .object(let object)? = try? JSON.parse(payload),
            case .array(let values)? = object["v"], values.count == count,
            case .number(let number)? = object["t"], let ties = Int(number.text), ties >= 0
        else { return nil }
        var key: String?
        if let member = object["k"] {
            guard case .string(let text) = member else { return nil }
            key = text
        }
        return ViewCursor(values: values, key: key, ties: ties)
    }

    private static func digest(_ payload: [UInt8], _ binding: String) -> [UInt8] {
        Array(SHA256Digest.hash(Array(binding.utf8) + [0] + payload).prefix(16))
    }
}

/// RFC 4648 §5 base64url without padding.
enum Base64URLText {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var word: UInt32 = 0
            for (shift, byte) in chunk.enumerated() { word |= UInt32(byte) << (16 - 8 * shift) }
            for position in 0...chunk.count { out.append(alphabet[Int((word >> (18 - 6 * position)) & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for anything that is not the one encoding `encode` makes of some bytes.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return accumulator == 0 ? bytes : nil
    }
}
