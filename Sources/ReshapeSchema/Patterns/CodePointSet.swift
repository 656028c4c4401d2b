/// A set of Unicode code points as sorted, disjoint, non-adjacent ranges: what one
/// character-class atom of an ECMA-262 pattern (`[a-z]`, `\d`, `.`, a literal) matches.
struct CodePointSet: Equatable {
    private(set) var ranges: [ClosedRange<UInt32>] = []

    static let maximum: UInt32 = 0x10FFFF

    init() {}

    init(_ ranges: [ClosedRange<UInt32>]) {
        for range in ranges { insert(range) }
    }

    init(_ scalar: UInt32) { ranges = [scalar...scalar] }

    mutating func insert(_ range: ClosedRange<UInt32>) {
        var merged = range
        var kept: [ClosedRange<UInt32>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for r in ranges {
            if r.upperBound &+ 1 < merged.lowerBound {
                kept.append(r)
            } else if merged.upperBound &+ 1 < r.lowerBound {
                if !placed {
                    kept.append(merged)
                    placed = true
                }
                kept.append(r)
            } else {
                merged = min(r.lowerBound, merged.lowerBound)...max(r.upperBound, merged.upperBound)
            }
        }
        if !placed { kept.append(merged) }
        ranges = kept
    }

    mutating func formUnion(_ other: CodePointSet) {
        for range in other.ranges { insert(range) }
    }

    /// Every code point not in the set.
    var inverted: CodePointSet {
        var result = CodePointSet()
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { result.ranges.append(next...(r.lowerBound - 1)) }
            next = r.upperBound &+ 1
        }
        if next <= Self.maximum { result.ranges.append(next...Self.maximum) }
        return result
    }

    func contains(_ scalar: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < scalar { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].lowerBound <= scalar
    }

    /// True when the set holds every code point from U+0080 up (surrogates aside, which no
    /// string holds); false when it holds none; nil when it holds some: then a matcher must
    /// decode non-ASCII characters to answer.
    var containsAllNonASCII: Bool? {
        let high = ranges.compactMap { r -> ClosedRange<UInt32>? in
            let low = max(r.lowerBound, 0x80)
            return low <= r.upperBound ? low...r.upperBound : nil
        }
        if high.isEmpty { return false }
        if high == [0x80...Self.maximum] || high == [0x80...0xD7FF, 0xE000...Self.maximum] { return true }
        return nil
    }

    // ECMA-262's meaning of the class escapes and `.` (RegExp with the `u` flag, no `i`).
    static let digit = CodePointSet([0x30...0x39])
    static let word = CodePointSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// WhiteSpace and LineTerminator: TAB, LF, VT, FF, CR, SPACE, NBSP, the other Zs
    /// characters (U+1680, U+2000-200A, U+202F, U+205F, U+3000), LS, PS and ZWNBSP (U+FEFF).
    /// Not U+0085 or U+180E.
    static let space = CodePointSet([
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
        0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000,
        0xFEFF...0xFEFF,
    ])
    /// `.`: anything but the line terminators LF, CR, LS and PS.
    static let dot = CodePointSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]).inverted
    static let all = CodePointSet([0...maximum])
}
