/// Finds line ends (CR or LF) in event-stream bytes eight at a time: the one scan the parser and
/// the writer share, since Firebase's first `put` is the whole document on one `data:` line.
enum LineBreaks {
    static let carriageReturn = UInt8(ascii: "\r")
    static let lineFeed = UInt8(ascii: "\n")

    /// The index of the first CR or LF in `bytes[start...]`, or nil when there is none.
    @inline(__always)
    static func first(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var i = start
        while i + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let mask = breakMask(word)
            if mask != 0 { return i + (mask.trailingZeroBitCount >> 3) }
            i += 8
        }
        while i < count {
            let byte = base[i]
            if byte == lineFeed || byte == carriageReturn { return i }
            i += 1
        }
        return nil
    }

    /// The high bit of each byte of `word` (little-endian) that is CR or LF. Borrows can also mark
    /// bytes above a true match, never below it, so the lowest marked byte is always exact.
    @inline(__always)
    static func breakMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let lf = word ^ (ones &* UInt64(lineFeed))
        let cr = word ^ (ones &* UInt64(carriageReturn))
        return (((lf &- ones) & ~lf) | ((cr &- ones) & ~cr)) & highs
    }
}
