/// Strong entity tags for normalized answers, and `If-None-Match` matching (RFC 9110 §8.8.3,
/// §13.1.2). The tag is a fast non-cryptographic 64-bit hash of the exact bytes sent: equal
/// bytes, equal tag; it identifies a representation, it does not protect anything.
package enum EntityTag {
    /// `"<16 hex digits>"`, quotes included, as the `ETag` header carries it.
    package static func of(_ bytes: [UInt8]) -> String {
        let hash = bytes.withUnsafeBytes { raw -> UInt64 in
            // Four independent lanes of one multiply per 8 bytes (a single lane's chain of
            // dependent multiplies runs at a quarter of the speed), then a final mix (the
            // finalizer of splitmix64).
            let seed: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: raw.count)
            var lanes: (UInt64, UInt64, UInt64, UInt64) = (seed, ~seed, seed &+ 1, ~seed &- 1)
            @inline(__always) func step(_ h: inout UInt64, _ word: UInt64) {
                h = (h ^ word) &* 0xBF58_476D_1CE4_E5B9
                h ^= h >> 29
            }
            var offset = 0
            while offset + 32 <= raw.count {
                step(&lanes.0, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                step(&lanes.1, raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                step(&lanes.2, raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                step(&lanes.3, raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
                offset += 32
            }
            var h =
                lanes.0 ^ (lanes.1 << 16 | lanes.1 >> 48) ^ (lanes.2 << 32 | lanes.2 >> 32)
                ^ (lanes.3 << 48 | lanes.3 >> 16)
            while offset + 8 <= raw.count {
                step(&h, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            for (shift, index) in (offset..<raw.count).enumerated() {
                tail |= UInt64(raw[index]) << (8 * UInt64(shift))
            }
            h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
            h ^= h >> 31
            h = h &* 0xBF58_476D_1CE4_E5B9
            return h ^ (h >> 32)
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether an `If-None-Match` value names `tag`: `*`, or a comma-separated list of tags
    /// compared weakly (a `W/` prefix on either side is ignored), as RFC 9110 asks for GET and HEAD.
    package static func ifNoneMatch(_ header: String, matches tag: String) -> Bool {
        let wanted = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
        for candidate in header.split(separator: ",") {
            var value = candidate.drop { $0 == " " || $0 == "\t" }
            while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
            if value == "*" { return true }
            if value.hasPrefix("W/") { value = value.dropFirst(2) }
            if value == wanted { return true }
        }
        return false
    }
}
