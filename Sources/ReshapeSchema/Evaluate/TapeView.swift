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
            if !withName(i, { body($0, i + 1) }) { return false }
            i = next(i + 1)
        }
        return true
    }

    /// `withString` for a member name node on the tape (never `extraNameNode`).
    @inline(__always) private func withName<R>(_ node: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if tapeRef._withUnsafeGuaranteedRef({ $0.isEscaped(node) }) { return tape.withString(node, body) }
        let range = tapeRef._withUnsafeGuaranteedRef { $0.textRange(node) }
        return body(UnsafeBufferPointer(start: base + range.lowerBound + 1, count: range.count - 2))
    }

    /// Calls `body(position, elementNode)` for each element of an array; stops (and returns
    /// false) when `body` does.
    @inline(__always)
    func allElements(_ array: Int, _ body: (Int, Int) -> Bool) -> Bool {
        var element = array + 1
        var position = 0
        let end = next(array)
        while element < end {
            if !body(position, element) { return false }
            element = next(element)
            position &+= 1
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
