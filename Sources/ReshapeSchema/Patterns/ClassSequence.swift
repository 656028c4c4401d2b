/// A sequence of single-character atoms (a literal, a class, `\d`, `.`...) each with an
/// optional quantifier, between optional anchors: `^[a-z0-9_-]+$`, `^[^@ ]+@[^@ ]+$`,
/// `^https?://`. Matched by a deterministic automaton built at load time: one table step per
/// byte, no backtracking, linear time.
///
/// The automaton comes from the pattern's positions: `x+` is a required `x` then a looping
/// one, `x{2,4}` two required and two optional, `x*` one looping. A set of positions (bit i:
/// "the atoms before position i are matched"; the bit past the last: "all are") is one state
/// of the automaton (subset construction). At most 63 positions and `maximumStates` states;
/// beyond that the pattern goes to PCRE2.
final class ClassSequence {
    static let maximumStates = 128

    /// State 0 is "no match possible" (only with `^`), state 1 "matched" (only without `$`):
    /// both are final, so the scan stops there.
    private static let dead = 0, matched = 1
    /// A table entry for a non-ASCII lead byte when non-ASCII characters must be decoded.
    private static let decode: UInt8 = 0xFF

    /// `table[state << 8 | byte]`: the next state. ASCII bytes step; UTF-8 continuation
    /// bytes keep the state; lead bytes step on their character's class when every atom
    /// treats all non-ASCII characters alike, else say `decode`.
    private let table: UnsafeMutableBufferPointer<UInt8>
    private let accepting: UnsafeMutableBufferPointer<Bool>
    private let start: Int
    /// For decoding: non-ASCII code points split at every class boundary, each piece's symbol,
    /// and `nonASCIITable[state * symbolCount + symbol]`.
    private let boundaries: [UInt32]
    private let pieceSymbols: [Int]
    private let symbolCount: Int
    private let nonASCIITable: UnsafeMutableBufferPointer<UInt8>

    init?(_ tokens: ArraySlice<ECMARegexParser.Token>, atStart: Bool, atEnd: Bool) {
        // Positions.
        var sets: [CodePointSet] = []
        var skippable: UInt64 = 0
        var looping: UInt64 = 0
        var k = tokens.startIndex
        while k < tokens.endIndex {
            let atom: CodePointSet
            switch tokens[k] {
            case .char(let value): atom = CodePointSet(value)
            case .set(let set): atom = set
            default: return nil
            }
            k += 1
            var min = 1
            var max: Int? = 1
            if k < tokens.endIndex, case .quantifier(let low, let high, _) = tokens[k] {
                // Lazy or greedy: the same strings match somewhere.
                min = low
                max = high
                k += 1
            }
            guard sets.count + min + (max.map { $0 - min } ?? 1) <= 63 else { return nil }
            for _ in 0..<min { sets.append(atom) }
            if let max {
                for _ in min..<max {
                    skippable |= 1 << UInt64(sets.count)
                    sets.append(atom)
                }
            } else {
                skippable |= 1 << UInt64(sets.count)
                looping |= 1 << UInt64(sets.count)
                sets.append(atom)
            }
        }
        func positions(containing scalar: UInt32) -> UInt64 {
            var mask: UInt64 = 0
            for (p, set) in sets.enumerated() where set.contains(scalar) { mask |= 1 << UInt64(p) }
            return mask
        }

        // Symbols: the 128 ASCII bytes, then one per distinct non-ASCII behaviour.
        var boundarySet: Set<UInt32> = [0x80]
        for set in sets {
            for r in set.ranges {
                if r.lowerBound > 0x80 { boundarySet.insert(r.lowerBound) }
                if r.upperBound >= 0x80 && r.upperBound < CodePointSet.maximum { boundarySet.insert(r.upperBound + 1) }
            }
        }
        let boundaries = boundarySet.sorted()
        var symbolMasks: [UInt64] = (0..<128).map { positions(containing: UInt32($0)) }
        var pieceSymbols: [Int] = []
        for start in boundaries {
            let mask = positions(containing: start)
            if let existing = symbolMasks[128...].firstIndex(of: mask) {
                pieceSymbols.append(existing - 128)
            } else {
                pieceSymbols.append(symbolMasks.count - 128)
                symbolMasks.append(mask)
            }
        }
        let symbolCount = symbolMasks.count - 128

        // Subset construction.
        let accept: UInt64 = 1 << UInt64(sets.count)
        func closure(_ state: UInt64) -> UInt64 {
            var state = state
            while true {
                let added = ((state & skippable) << 1) & ~state
                if added == 0 { return state }
                state |= added
            }
        }
        let initial = closure(1)
        let matchedBits = UInt64.max
        func canonical(_ bits: UInt64) -> UInt64 { !atEnd && bits & accept != 0 ? matchedBits : bits }
        var stateBits: [UInt64] = [0, matchedBits]
        var index: [UInt64: Int] = [0: Self.dead, matchedBits: Self.matched]
        func id(_ bits: UInt64) -> Int? {
            let bits = canonical(bits)
            if let known = index[bits] { return known }
            guard stateBits.count < Self.maximumStates else { return nil }
            index[bits] = stateBits.count
            stateBits.append(bits)
            return stateBits.count - 1
        }
        guard let start = id(initial) else { return nil }
        var transitions: [[Int]] = []
        var s = 0
        while s < stateBits.count {
            let bits = stateBits[s]
            var row: [Int] = []
            for mask in symbolMasks {
                if s == Self.dead || s == Self.matched {
                    row.append(s)
                    continue
                }
                let stepped = bits & mask
                let next = closure(((stepped & ~looping) << 1) | (stepped & looping)) | (atStart ? 0 : initial)
                guard let target = id(next) else { return nil }
                row.append(target)
            }
            transitions.append(row)
            s += 1
        }

        let uniform = symbolCount == 1
        table = .allocate(capacity: stateBits.count << 8)
        nonASCIITable = .allocate(capacity: stateBits.count * symbolCount)
        accepting = .allocate(capacity: stateBits.count)
        for (state, row) in transitions.enumerated() {
            for byte in 0..<256 {
                let next: UInt8
                switch byte {
                case 0..<0x80: next = UInt8(row[byte])
                case 0x80..<0xC0: next = UInt8(state)
                default: next = uniform ? UInt8(row[128]) : Self.decode
                }
                table.initializeElement(at: state << 8 | byte, to: next)
            }
            for symbol in 0..<symbolCount {
                nonASCIITable.initializeElement(at: state * symbolCount + symbol, to: UInt8(row[128 + symbol]))
            }
            accepting.initializeElement(
                at: state, to: state == Self.matched || (state != Self.dead && stateBits[state] & accept != 0))
        }
        self.start = start
        self.boundaries = boundaries
        self.pieceSymbols = pieceSymbols
        self.symbolCount = symbolCount
    }

    deinit {
        table.deallocate()
        nonASCIITable.deallocate()
        accepting.deallocate()
    }

    /// States of the automaton, for tests.
    var stateCount: Int { accepting.count }

    @inline(__always)
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var state = start
        let table = UnsafePointer(table.baseAddress!)
        var i = 0
        let n = text.count
        while i < n {
            if state <= Self.matched { return state == Self.matched }
            let next = table[state &<< 8 | Int(text[i])]
            if next != Self.decode {
                state = Int(next)
                i &+= 1
            } else {
                state = nonASCIIStep(state, text, &i)
            }
        }
        return accepting[state]
    }

    private func nonASCIIStep(_ state: Int, _ text: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Int {
        let scalar = Self.decode(text, &i)
        var low = 0
        var high = boundaries.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if boundaries[mid] <= scalar { low = mid } else { high = mid }
        }
        return Int(nonASCIITable[state * symbolCount + pieceSymbols[low]])
    }

    /// The code point starting at `i` (a non-ASCII lead byte), moving `i` past it. Text is
    /// valid UTF-8; a truncated sequence still ends the loop instead of reading past the end.
    private static func decode(_ text: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> UInt32 {
        let lead = UInt32(text[i])
        let length = lead >= 0xF0 ? 4 : (lead >= 0xE0 ? 3 : 2)
        guard i + length <= text.count else {
            i = text.count
            return 0xFFFD
        }
        var value = lead & (lead >= 0xF0 ? 0x07 : (lead >= 0xE0 ? 0x0F : 0x1F))
        for k in 1..<length { value = value << 6 | UInt32(text[i + k] & 0x3F) }
        i += length
        return value
    }
}
