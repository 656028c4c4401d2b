import ReshapeJSON

/// The instance side of a tape validation: the tape, its bytes and the prepended member.
/// Trivial to copy (no reference counting), so a keyword can take a copy and iterate members
/// while the closure mutates the evaluation.
struct TapeView {
    /// Unmanaged: a class reference read in the member loops would be retained per member.
    let tapeRef: Unmanaged<JSONTape>
    /// `tape.bytes`, held by `Validator.isValid` for the whole run.
    let base: UnsafePointer<UInt8>
    /// The object node that has the prepended member, or -1.
    let extraObject: Int
    let extraName: UnsafeBufferPointer<UInt8>
    let extraValue: Int

    /// A node number for the prepended member's name, which is not on the tape: a string for
    /// `propertyNames`.
    static let extraNameNode = -2

    /// For cold paths (materializing, decoding numbers).
    var tape: JSONTape { tapeRef.takeUnretainedValue() }

    @inline(__always) func kind(_ node: Int) -> JSONTape.Kind {
        node == Self.extraNameNode ? .string : tapeRef._withUnsafeGuaranteedRef { $0.kind(node) }
    }

    @inline(__always) func next(_ node: Int) -> Int { tapeRef._withUnsafeGuaranteedRef { $0.next(node) } }

    @inline(__always) func count(_ node: Int) -> Int { tapeRef._withUnsafeGuaranteedRef { $0.count(node) } }

    /// Members of an object, counting the prepended one.
    @inline(__always) func memberCount(_ object: Int) -> Int {
        count(object) + (object == extraObject ? 1 : 0)
    }

    /// The text of a number, or the quoted text of a string.
    @inline(__always) func text(_ node: Int) -> UnsafeBufferPointer<UInt8> {
        let range = tapeRef._withUnsafeGuaranteedRef { $0.textRange(node) }
        return UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    /// Calls `body` with a string node's value as UTF-8 (escapes decoded).
    @inline(__always) func withString<R>(_ node: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if node == Self.extraNameNode { return body(extraName) }
        if tapeRef._withUnsafeGuaranteedRef({ $0.isEscaped(node) }) { return tape.withString(node, body) }
        let range = tapeRef._withUnsafeGuaranteedRef { $0.textRange(node) }
        return body(UnsafeBufferPointer(start: base + range.lowerBound + 1, count: range.count - 2))
    }

    @inline(__always) func string(_ node: Int) -> String {
        node == Self.extraNameNode ? String(decoding: extraName, as: UTF8.self) : tape.string(node)
    }

    /// Calls `body(name, valueNode)` for each member, the prepended one first; stops (and
    /// returns false) when `body` does.
    @inline(__always)
    func allMembers(_ object: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) -> Bool) -> Bool {
        if object == extraObject, !body(extraName, extraValue) { return false }
        var i = object + 1
        let end = next(object)
        while i < end {
            if !withString(i, { body($0, i + 1) }) { return false }
            i = next(i + 1)
        }
        return true
    }

    @inline(__always) func hasMember(_ object: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        !allMembers(object) { member, _ in !NameList.equal(member, name) }
    }

    /// `hasMember`, scanning from `cursor` (a member name node; start with `object + 1`) round
    /// to where it started and leaving it after the match: `required` tends to list names in
    /// the order records have them, so each is found at the first comparison.
    @inline(__always)
    func hasMember(_ object: Int, _ name: UnsafeBufferPointer<UInt8>, cursor: inout Int) -> Bool {
        if object == extraObject && NameList.equal(extraName, name) { return true }
        let first = object + 1
        let end = next(object)
        guard first < end else { return false }
        var i = cursor
        repeat {
            let found = withString(i) { NameList.equal($0, name) }
            i = next(i + 1)
            if i == end { i = first }
            if found {
                cursor = i
                return true
            }
        } while i != cursor
        return false
    }

    /// A number's value when its text is a plain integer of at most 18 digits.
    @inline(__always) func smallInteger(_ node: Int) -> Int64? { NumberBound.smallInteger(text(node)) }

    /// `type: integer` for a number node: integer text, or a value like 1.0 or 1e2.
    @inline(__always) func isInteger(_ node: Int) -> Bool {
        let digits = text(node)
        var i = 0
        while i < digits.count {
            let byte = digits[i]
            if byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e") { return tape.number(node).isInteger }
            i &+= 1
        }
        return true
    }

    /// `StrictEquality.equal` of a node and a value; only containers are materialized.
    func equals(_ node: Int, _ value: JSON) -> Bool {
        switch (kind(node), value) {
        case (.null, .null): return true
        case (.false, .bool(let flag)): return !flag
        case (.true, .bool(let flag)): return flag
        case (.number, .number(let number)): return tape.number(node) == number
        case (.string, .string(let string)): return withString(node) { string.utf8.elementsEqual($0) }
        case (.array, .array), (.object, .object): return StrictEquality.equal(materialize(node), value)
        default: return false
        }
    }

    /// The value as a tree, with the prepended member when it is the prepended object.
    func materialize(_ node: Int) -> JSON {
        if node == Self.extraNameNode { return .string(string(node)) }
        guard node == extraObject else { return tape.materialize(node) }
        let member = PrependedMember(name: String(decoding: extraName, as: UTF8.self), valueNode: extraValue)
        return Validator.materialize(tape, node, prepending: member)
    }
}

/// One quiet validation over a tape: `Evaluation` in quiet mode, with node indices for
/// instances. Keywords without a tape check, and schemas that gather annotations for
/// `unevaluated*`, run the tree evaluator on the one value they look at (`fallback`).
struct TapeEvaluation {
    let view: TapeView
    unowned(unsafe) let anchors: DynamicAnchorTable
    let maxDepth: Int
    /// Schemas applied so far at the current instance location (bounds `$ref` cycles).
    var depth = 0
    /// Times the tree evaluator ran; tests check that common schemas never need it.
    var fallbacks = 0

    init(view: TapeView, anchors: DynamicAnchorTable, maxDepth: Int) {
        self.view = view
        self.anchors = anchors
        self.maxDepth = maxDepth
    }

    /// `Evaluation.evaluate` for a tape node: same constants, depth guard and keyword order.
    mutating func evaluate(_ schema: SchemaNode, _ node: Int) -> Bool {
        if let constant = schema.constant { return constant }
        if schema.tracksEvaluated { return fallback(node) { $0.evaluate(schema, $1, "", &$2, collect: false) } }
        if depth >= maxDepth { return false }
        let type = schema.tapeType
        if type != 0, !TypeKeyword.matches(TypeMask(rawValue: type & ~SchemaNode.hasType), view, node) { return false }
        let keywords = schema.tapeKeywords
        if keywords.isEmpty { return true }
        depth += 1
        defer { depth -= 1 }
        for keyword in keywords where !keyword._withUnsafeGuaranteedRef({ $0.check(tape: &self, node) }) {
            return false
        }
        return true
    }

    /// A subschema at a child location: a new chain for the depth guard, as in `Evaluation.at`.
    @inline(__always)
    mutating func at(_ schema: SchemaNode, _ node: Int) -> Bool {
        // Most member schemas are a lone `type`: checked here, without a call.
        let leaf = schema.tapeLeafType
        if leaf != 0 { return maxDepth > 0 && TypeKeyword.matches(TypeMask(rawValue: leaf & ~SchemaNode.hasType), view, node) }
        let outer = depth
        depth = 0
        defer { depth = outer }
        return evaluate(schema, node)
    }

    /// Runs `body` on a quiet tree evaluation at this depth with the node materialized.
    mutating func fallback(_ node: Int, _ body: (inout Evaluation, JSON, inout Annotations) -> Bool) -> Bool {
        fallbacks += 1
        let value = view.materialize(node)
        var evaluation = Evaluation(anchors: anchors, maxDepth: maxDepth, reporting: false, maxErrors: 0)
        evaluation.depth = depth
        var annotations = Annotations()
        return body(&evaluation, value, &annotations)
    }
}
