/// Matchers for the simple patterns most schemas use, on UTF-8 bytes, with ECMA-262 meaning
/// and no regex engine:
/// - literal alternatives: `@`, `^foo`, `\.json$`, `^(red|green|blue)$`, `^a$|^b$`: byte
///   comparison (the UTF-8 of a code point sequence is unique, so that is exact);
/// - class sequences: single-character atoms (a literal, a class, `\d`, `.`...) each with an
///   optional quantifier, between optional anchors: `^[a-z0-9_-]+$`, `^[^@ ]+@[^@ ]+$`,
///   `^https?://`, `^.{1,3}$`: a deterministic automaton built at load time, one table step
///   per byte, so there is no backtracking to get wrong and the time is linear in the string.
///
/// `DirectPatternMatcher.make` reads `ECMARegexParser` tokens into one of these, or nil.
enum DirectPatternMatcher {
    enum Form {
        case literals(LiteralAlternatives)
        case classes(ClassSequence)
    }

    typealias Token = ECMARegexParser.Token

    static func make(_ tokens: [Token]) -> Form? {
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
            return .literals(LiteralAlternatives(literals))
        }
        var body = ArraySlice(tokens)
        let atStart = body.first == .start
        if atStart { body = body.dropFirst() }
        let atEnd = body.last == .end
        if atEnd { body = body.dropLast() }
        if let bytes = literalBytes(body) {
            return .literals(LiteralAlternatives([.init(bytes: bytes, atStart: atStart, atEnd: atEnd)]))
        }
        // One group of literal alternatives between the anchors: `^(a|b|c)$`, `(?:x|y)`.
        if body.count >= 2, case .open(let group) = body.first!, group == .capture || group == .nonCapture,
            body.last == .close
        {
            let inner = body.dropFirst().dropLast()
            var literals: [LiteralAlternatives.Branch] = []
            for branch in topLevelBranches(inner) {
                guard let bytes = literalBytes(branch) else { return nil }
                literals.append(.init(bytes: bytes, atStart: atStart, atEnd: atEnd))
            }
            return .literals(LiteralAlternatives(literals))
        }
        return ClassSequence(body, atStart: atStart, atEnd: atEnd).map { .classes($0) }
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
