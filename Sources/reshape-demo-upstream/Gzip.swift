// A valid gzip stream without zlib: stored (uncompressed) deflate blocks, CRC-32 and ISIZE
// (RFC 1952 / RFC 1951 §3.2.4). Enough to exercise a client's Content-Encoding: gzip path.

enum Gzip {
    /// `data` wrapped as a gzip member made of stored deflate blocks.
    static func encodeStored(_ data: [UInt8]) -> [UInt8] {
        // ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255 (unknown)
        var out: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isFinal = offset + length == data.count
            out.append(isFinal ? 0x01 : 0x00)  // BFINAL, BTYPE=00 (stored), then byte-aligned
            out.append(contentsOf: littleEndian16(UInt16(length)))
            out.append(contentsOf: littleEndian16(~UInt16(length)))
            out.append(contentsOf: data[offset..<(offset + length)])
            offset += length
        } while offset < data.count
        out.append(contentsOf: littleEndian32(crc32(data)))
        out.append(contentsOf: littleEndian32(UInt32(truncatingIfNeeded: data.count)))
        return out
    }

    /// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) as gzip requires.
    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    private static func littleEndian16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    private static func littleEndian32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xff), UInt8((v >> 8) & 0xff), UInt8((v >> 16) & 0xff), UInt8(v >> 24)]
    }
}
