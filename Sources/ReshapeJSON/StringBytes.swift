/// Word-at-a-time classification of string bytes, shared by the parser and the writer.
enum StringBytes {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte that is a quote, a backslash or a control character. Bytes
    /// above a flagged byte may be flagged falsely (borrows); the lowest flag is exact.
    @inline(__always) static func specialMask(_ word: UInt64) -> UInt64 {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote & highBits
        let hasBackslash = (backslash &- ones) & ~backslash & highBits
        let hasControl = (word &- ones &* 0x20) & ~word & highBits
        return hasQuote | hasBackslash | hasControl
    }
}
