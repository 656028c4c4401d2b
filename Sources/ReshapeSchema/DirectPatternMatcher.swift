/// Matchers for the simple patterns most schemas use, on UTF-8 bytes, with ECMA-262 meaning
/// and no regex engine:
/// - literal alternatives: `@`, `^foo`, `\.json$`, `^(red|green|blue)$`, `^a$|^b$`: byte
///   comparison (the UTF-8 of a code point sequence is unique, so that is exact);
/// - class sequences: single-character atoms (a literal, a class, `\d`, `.`...) each with an
///   optional quantifier, between optional anchors: `^[a-z0-9_-]+$`, `^[^@ ]+@[^@ ]+$`,
///   `^https?://`, `^.{1,3}$`. They are matched by simulating the pattern's automaton, every
///   possible position at once (one bit each), so there is no backtracking to get wrong and
///   the time is linear in the string.
///
/// Made by `DirectPatternMatcher.make` from `ECMARegexParser` tokens; anything else is nil.
final class DirectPatternMatcher {
    enum Form {
        case literals(LiteralAlternatives)
        case classes(ClassSequence)
    }

    let form: Form

    private init(_ form: Form) { self.form = form }

    @inline(__always)
    func matches(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        switch form {
        case .literals(let literals): return literals.matches(utf8)
        case .classes(let classes): return classes.matches(utf8)
        }
    }

    typealias Token = ECMARegexParser.Token

    static func make(_ tokens: [Token]) -> DirectPatternMatcher? {
        // Top-level alternatives, each of literal text with its own anchors: `^a$|^b$`.
        let branches = topLevelBranches(tokens[...])
        if branches.count > 1 {
            var literals: [LiteralAlternatives.Branch] = []
            for branch in branches {
                var body = ArraySlice(branch)
                let atStart = body.first == .start
                if atStart { body = body.dropFirst() }
                let atEnd = body.last == .end
                if atEnd { body = body.dropLast() }
                guard let bytes = literalBytes(body) else { return nil }
                literals.append(.init(bytes: bytes, atStart: atStart, atEnd: atEnd))
            }
            return DirectPatternMatcher(.literals(LiteralAlternatives(literals)))
        }
        var body = ArraySlice(tokens)
        let atStart = body.first == .start
        if atStart { body = body.dropFirst() }
        let atEnd = body.last == .end
        if atEnd { body = body.dropLast() }
        if let bytes = literalBytes(body) {
            return DirectPatternMatcher(.literals(LiteralAlternatives([.init(bytes: bytes, atStart: atStart, atEnd: atEnd)])))
        }
        // One group of literal alternatives between the anchors: `^(a|b|c)$`, `(?:x|y)`.
        if body.count >= 2, case .open(let group) = body.first!, group == .capture || group == .nonCapture,
           body.last == .close {
            let inner = body.dropFirst().dropLast()
            var literals: [LiteralAlternatives.Branch] = []
            for branch in topLevelBranches(inner) {
                guard let bytes = literalBytes(branch) else { return nil }
                literals.append(.init(bytes: bytes, atStart: atStart, atEnd: atEnd))
            }
            return DirectPatternMatcher(.literals(LiteralAlternatives(literals)))
        }
        return ClassSequence(body, atStart: atStart, atEnd: atEnd).map { DirectPatternMatcher(.classes($0)) }
    }

    /// `tokens` split at the `|`s outside groups.
    static func topLevelBranches(_ tokens: ArraySlice<Token>) -> [ArraySlice<Token>] {
        var branches: [ArraySlice<Token>] = []
        var depth = 0
        var start = tokens.startIndex
        for k in tokens.indices {
            switch tokens[k] {
            case .open: depth += 1
            case .close: depth -= 1
            case .or where depth == 0:
                branches.append(tokens[start..<k])
                start = k + 1
            default: break
            }
        }
        branches.append(tokens[start...])
        return branches
    }

    /// The UTF-8 of tokens that are all literal characters.
    static func literalBytes(_ tokens: ArraySlice<Token>) -> [UInt8]? {
        var bytes: [UInt8] = []
        for token in tokens {
            guard case .char(let value) = token, let scalar = Unicode.Scalar(value) else { return nil }
            bytes.append(contentsOf: UTF8.encode(scalar)!)
        }
        return bytes
    }
}

/// Alternatives of literal text, each anchored at the start, the end, both or neither.
final class LiteralAlternatives {
    struct Branch {
        let bytes: [UInt8]
        let atStart: Bool
        let atEnd: Bool
    }

    let branches: [Branch]
    /// Every branch's bytes, one after the other, and where each branch is in them.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let spans: UnsafeMutableBufferPointer<(start: Int, count: Int, atStart: Bool, atEnd: Bool)>

    init(_ branches: [Branch]) {
        self.branches = branches
        storage = .allocate(capacity: branches.reduce(0) { $0 + $1.bytes.count })
        spans = .allocate(capacity: branches.count)
        var offset = 0
        for (k, branch) in branches.enumerated() {
            _ = UnsafeMutableBufferPointer(rebasing: storage[offset..<(offset + branch.bytes.count)]).initialize(from: branch.bytes)
            spans.initializeElement(at: k, to: (offset, branch.bytes.count, branch.atStart, branch.atEnd))
            offset += branch.bytes.count
        }
    }

    deinit {
        storage.deallocate()
        spans.deallocate()
    }

    @inline(__always)
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for span in spans {
            let literal = UnsafeBufferPointer(rebasing: storage[span.start..<(span.start + span.count)])
            if Self.matches(literal, span.atStart, span.atEnd, text) { return true }
        }
        return false
    }

    @inline(__always)
    static func matches(_ literal: UnsafeBufferPointer<UInt8>, _ atStart: Bool, _ atEnd: Bool,
                        _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = literal.count
        guard n <= text.count else { return false }
        if atStart && atEnd { return n == text.count && equal(literal, text, at: 0) }
        if atStart { return equal(literal, text, at: 0) }
        if atEnd { return equal(literal, text, at: text.count - n) }
        guard n > 0 else { return true }
        let first = literal[0]
        var i = 0
        let last = text.count - n
        while i <= last {
            if text[i] == first && equal(literal, text, at: i) { return true }
            i &+= 1
        }
        return false
    }

    @inline(__always)
    static func equal(_ literal: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        var k = 0
        while k < literal.count {
            if literal[k] != text[offset &+ k] { return false }
            k &+= 1
        }
        return true
    }
}

/// A sequence of single-character atoms with quantifiers, as a chain of positions: `x+` is a
/// required `x` then a looping one, `x{2,4}` two required and two optional, `x*` one looping.
/// Bit i of the state means "the atoms before position i are matched"; the bit past the last
/// position means the whole sequence is. At most 63 positions.
final class ClassSequence {
    let count: Int
    let atStart: Bool
    let atEnd: Bool
    /// Per ASCII byte, the positions whose atom matches it.
    private let asciiMasks: UnsafeMutableBufferPointer<UInt64>
    /// Positions that may be skipped (`?`, `*`, the optional part of `{n,m}`) and that loop (`*`).
    private let skippable: UInt64
    private let looping: UInt64
    /// The state before any character: position 0 and what skipping reaches from it.
    private let initial: UInt64
    private let accept: UInt64
    /// When every atom treats every non-ASCII character alike (`[^@ ]` takes them all, `[a-z]`
    /// none), the positions matching any of them: non-ASCII text is then not decoded.
    private let nonASCIIMask: UInt64?
    private let sets: [CodePointSet]

    init?(_ tokens: ArraySlice<ECMARegexParser.Token>, atStart: Bool, atEnd: Bool) {
        var sets: [CodePointSet] = []
        var skippable: UInt64 = 0, looping: UInt64 = 0
        var k = tokens.startIndex
        while k < tokens.endIndex {
            let atom: CodePointSet
            switch tokens[k] {
            case .char(let value): atom = CodePointSet(value)
            case .set(let set): atom = set
            default: return nil
            }
            k += 1
            var min = 1, max: Int? = 1
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
        count = sets.count
        self.atStart = atStart
        self.atEnd = atEnd
        self.skippable = skippable
        self.looping = looping
        self.sets = sets
        accept = 1 << UInt64(sets.count)
        asciiMasks = .allocate(capacity: 128)
        for byte in 0..<128 {
            var mask: UInt64 = 0
            for (p, set) in sets.enumerated() where set.contains(UInt32(byte)) { mask |= 1 << UInt64(p) }
            asciiMasks.initializeElement(at: byte, to: mask)
        }
        var uniform: UInt64? = 0
        for (p, set) in sets.enumerated() {
            switch set.containsAllNonASCII {
            case true?: uniform? |= 1 << UInt64(p)
            case false?: break
            case nil: uniform = nil
            }
        }
        nonASCIIMask = uniform
        initial = Self.closure(1, skippable)
    }

    deinit { asciiMasks.deallocate() }

    /// `state` plus the positions reached from it by skipping.
    @inline(__always)
    static func closure(_ state: UInt64, _ skippable: UInt64) -> UInt64 {
        var state = state
        while true {
            let added = ((state & skippable) << 1) & ~state
            if added == 0 { return state }
            state |= added
        }
    }

    @inline(__always)
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var state = initial
        if !atEnd && state & accept != 0 { return true }
        var i = 0
        let n = text.count
        while i < n {
            let byte = text[i]
            var mask: UInt64
            if byte < 0x80 {
                mask = asciiMasks[Int(byte)]
                i &+= 1
            } else if let nonASCIIMask {
                mask = nonASCIIMask
                i &+= byte >= 0xF0 ? 4 : (byte >= 0xE0 ? 3 : 2)
            } else {
                mask = nonASCIIPositions(decode(text, &i))
            }
            let matched = state & mask
            state = Self.closure(((matched & ~looping) << 1) | (matched & looping), skippable)
            if !atStart { state |= initial }
            if state & accept != 0 && !atEnd { return true }
            if state == 0 { return false }
        }
        return state & accept != 0
    }

    private func nonASCIIPositions(_ scalar: UInt32) -> UInt64 {
        var mask: UInt64 = 0
        for p in 0..<count where sets[p].contains(scalar) { mask |= 1 << UInt64(p) }
        return mask
    }

    /// The code point starting at `i` (a non-ASCII lead byte), moving `i` past it. Text is
    /// valid UTF-8; a truncated sequence still ends the loop instead of reading past the end.
    @inline(__always)
    private func decode(_ text: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> UInt32 {
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
