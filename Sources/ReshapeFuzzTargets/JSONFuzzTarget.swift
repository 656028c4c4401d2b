import ReshapeJSON

// The input is a JSON document (or not). Properties of Reshape's one grammar:
// - the tape and the tree accept the same documents and fail with the same error;
// - for accepted documents, `tape.serialize(node)` is `tape.materialize(node).serialized()`
//   (root and a sample of inner nodes), and parsing that output gives the same tree and the
//   same bytes again (the compact form is canonical); the pretty form parses to the same tree;
// - rejected documents give an offset inside the input and the line and column of that
//   offset (lines split at LF, columns count Unicode scalars: docs/json.md);
// - a slice that does not start at index 0 parses exactly as the same bytes in an array;
// - numbers compare by exact decimal value (docs/json.md): for pairs of the document's numbers,
//   `==`, `<` and `hash` agree with an independent exact comparison, and `int64Value` and
//   `isMultiple(of:)` with Int64 arithmetic where it applies;
// - the parser's paths (stage 1 by SIMD, by portable C, or no index at all: the scalar parser)
//   accept the same documents with the same tape and reject them with the same error;
// - an accepted document repeats no member name within an object (checked here by sets of
//   each object's names' bytes, apart from the parser's own check).

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let tape = Result { () throws(JSONParseError) in try JSONTape.parse(bytes) }
    let tree = Result { () throws(JSONParseError) in try JSON.parse(bytes) }
    checkPaths(bytes, tape)

    switch (tape, tree) {
    case (.success(let tape), .success(let tree)):
        checkAccepted(bytes, tape, tree)
    case (.failure(let tapeError), .failure(let treeError)):
        require(tapeError == treeError, "tape error \(tapeError) but tree error \(treeError)")
        checkPosition(tapeError, in: bytes)
    case (.success, .failure(let error)):
        require(false, "the tape accepts what the tree rejects (\(error)): \(describe(bytes))")
    case (.failure(let error), .success):
        require(false, "the tree accepts what the tape rejects (\(error)): \(describe(bytes))")
    }

    // Same bytes behind a prefix, parsed as a slice: offsets count from the slice's start.
    let padded = [UInt8](repeating: UInt8(ascii: "x"), count: 3) + bytes
    let sliced = Result { () throws(JSONParseError) in try JSON.parse(padded[3...]) }
    switch (tree, sliced) {
    case (.success(let a), .success(let b)):
        require(a.serialized() == b.serialized(), "a slice parses to another value")
    case (.failure(let a), .failure(let b)):
        require(a == b, "a slice fails with \(b), the array with \(a)")
    default:
        require(false, "a slice and an array of the same bytes disagree on acceptance")
    }
    return 0
}

private func checkPaths(_ bytes: [UInt8], _ automatic: Result<JSONTape, JSONParseError>) {
    for path in [JSONParsePath.portableIndex, .scalar] {
        let other = Result { () throws(JSONParseError) in try JSONTape.parse(bytes, options: .init(path: path)) }
        switch (automatic, other) {
        case (.success(let a), .success(let b)):
            require(a.nodeCount == b.nodeCount, "\(path): \(b.nodeCount) nodes, not \(a.nodeCount): \(describe(bytes))")
            for node in 0..<a.nodeCount {
                let same =
                    a.kind(node) == b.kind(node) && a.textRange(node) == b.textRange(node)
                    && a.next(node) == b.next(node) && a.count(node) == b.count(node)
                    && a.isEscaped(node) == b.isEscaped(node) && a.isCanonical(node) == b.isCanonical(node)
                require(same, "\(path): node \(node) differs from the automatic path's: \(describe(bytes))")
            }
        case (.failure(let a), .failure(let b)):
            require(a == b, "\(path) error \(b) but automatic error \(a)")
        default:
            require(false, "\(path) and the automatic path disagree on acceptance: \(describe(bytes))")
        }
    }
}

private func checkAccepted(_ bytes: [UInt8], _ tape: JSONTape, _ tree: JSON) {
    var written: [UInt8] = []
    tape.serialize(tape.root, into: &written)
    let compact = tree.serialized()
    require(written == compact, "tape.serialize(root) \(describe(written)) != tree \(describe(compact))")

    // Inner nodes too (each is a value or a member name); bounded, as each materializes a subtree.
    for node in stride(from: 1, to: tape.nodeCount, by: max(1, tape.nodeCount / 32)) {
        var part: [UInt8] = []
        tape.serialize(node, into: &part)
        let expected = tape.materialize(node).serialized()
        require(part == expected, "node \(node): tape \(describe(part)) != tree \(describe(expected))")
    }

    checkNumbers(tree)
    checkDistinctNames(tree)

    do {
        let again = try JSON.parse(compact)
        require(again == tree, "re-parsing the compact output gives another value: \(describe(compact))")
        require(again.serialized() == compact, "the compact output is not canonical: \(describe(compact))")
        let pretty = tree.serialized(pretty: true)
        let prettyAgain = try JSON.parse(pretty)
        require(prettyAgain == tree, "re-parsing the pretty output gives another value: \(describe(pretty))")
    } catch {
        require(false, "the writer's output does not parse (\(error)): \(describe(compact))")
    }
}

/// An accepted document repeats no member name in any object, names compared as UTF-8 bytes
/// (code points), independently of the parser's own duplicate check.
private func checkDistinctNames(_ value: JSON) {
    switch value {
    case .array(let items): for item in items { checkDistinctNames(item) }
    case .object(let object):
        var seen = Set<[UInt8]>()
        for member in object.members {
            require(seen.insert(Array(member.key.utf8)).inserted, "accepted a repeated name \"\(member.key)\"")
            checkDistinctNames(member.value)
        }
    default: break
    }
}

private func checkPosition(_ error: JSONParseError, in bytes: [UInt8]) {
    require(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) outside \(bytes.count) bytes")
    var line = 1
    var column = 1
    for byte in bytes.prefix(max(0, error.offset)) {
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }
    require(
        error.line == line && error.column == column,
        "error \(error) at offset \(error.offset) should be at \(line):\(column)")
    require(!error.message.isEmpty, "an error without a message")
}

// MARK: - Numbers

/// Up to 12 numbers of the document, in document order.
private func numbers(in value: JSON, into found: inout [JSONNumber]) {
    guard found.count < 12 else { return }
    switch value {
    case .number(let number): found.append(number)
    case .array(let items): for item in items { numbers(in: item, into: &found) }
    case .object(let object): for member in object.members { numbers(in: member.value, into: &found) }
    default: break
    }
}

/// The exact value of a number's text as sign × digits × 10^exponent, normalized (no leading
/// or trailing zero digits; zero has no digits), written apart from ReshapeJSON's own so the two
/// can be compared. Nil when the exponent is too long for Int arithmetic.
private struct ExactValue {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    init?(_ text: String) {
        var bytes = Substring(text).utf8[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let mantissa = bytes.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        var exponent = 0
        if mantissa.count < bytes.count {
            let text = String(decoding: bytes.dropFirst(mantissa.count + 1), as: UTF8.self)
            let unsigned = text.drop { $0 == "+" || $0 == "-" }.drop { $0 == "0" }
            guard unsigned.count <= 17, let value = Int(unsigned.isEmpty ? "0" : unsigned) else { return nil }
            exponent = text.hasPrefix("-") ? -value : value
        }
        let point = mantissa.firstIndex(of: UInt8(ascii: "."))
        let fraction = point.map { mantissa[mantissa.index(after: $0)...] } ?? mantissa[mantissa.endIndex...]
        var digits = (Array(mantissa[..<(point ?? mantissa.endIndex)]) + Array(fraction)).map { $0 - UInt8(ascii: "0") }
        exponent -= fraction.count
        digits = Array(digits.drop { $0 == 0 })
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
        self.digits = digits
        self.exponent = exponent
    }

    static func compare(_ a: ExactValue, _ b: ExactValue) -> Int {
        if a.negative != b.negative { return a.negative ? -1 : 1 }
        var magnitude = 0
        if a.digits.isEmpty || b.digits.isEmpty {
            magnitude = (a.digits.isEmpty ? 0 : 1) - (b.digits.isEmpty ? 0 : 1)
        } else if a.digits.count + a.exponent != b.digits.count + b.exponent {
            magnitude = a.digits.count + a.exponent < b.digits.count + b.exponent ? -1 : 1
        } else if let i = (0..<max(a.digits.count, b.digits.count)).first(where: { a.digit($0) != b.digit($0) }) {
            magnitude = a.digit(i) < b.digit(i) ? -1 : 1
        }
        return a.negative ? -magnitude : magnitude
    }

    func digit(_ i: Int) -> UInt8 { i < digits.count ? digits[i] : 0 }

    /// The value when it is a whole number of at most 18 digits.
    var int64: Int64? {
        guard exponent >= 0, digits.count + exponent <= 18 else { return nil }
        let magnitude = (digits + [UInt8](repeating: 0, count: exponent)).reduce(Int64(0)) { $0 * 10 + Int64($1) }
        return negative ? -magnitude : magnitude
    }
}

private func checkNumbers(_ tree: JSON) {
    var found: [JSONNumber] = []
    numbers(in: tree, into: &found)
    for a in found {
        guard let x = ExactValue(a.text) else { continue }
        if let value = x.int64 {
            require(a.int64Value == value, "\(a.text).int64Value is \(a.int64Value.map(String.init) ?? "nil")")
        }
        for b in found {
            guard let y = ExactValue(b.text) else { continue }
            let expected = ExactValue.compare(x, y)
            require(
                (a == b) == (expected == 0) && (a < b) == (expected < 0),
                "\(a.text) vs \(b.text): == \(a == b), < \(a < b), exactly \(expected)")
            if a == b { require(a.hashValue == b.hashValue, "\(a.text) == \(b.text) with different hashes") }
            if let m = x.int64, let n = y.int64, n != 0 {
                require(
                    a.isMultiple(of: b) == (m % n == 0), "\(a.text).isMultiple(of: \(b.text)) is \(a.isMultiple(of: b))"
                )
            }
        }
    }
}
