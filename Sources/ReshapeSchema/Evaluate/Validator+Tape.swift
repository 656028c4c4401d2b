import ReshapeJSON

/// A member to treat as the first member of a tape object that does not hold it: the field
/// `keyed-to-array` adds to each record (its value is the record's name node, a string).
public struct PrependedMember: Sendable {
    public let name: String
    /// A string node on the same tape.
    public let valueNode: Int
    public init(name: String, valueNode: Int) {
        self.name = name
        self.valueNode = valueNode
    }
}

extension Validator {
    /// True when the value at `node` (with `prepended` as its first member, when given; the
    /// object must not already have a member of that name) matches, as `isValid(_: JSON)`
    /// would answer for the materialized value.
    public func isValid(_ tape: JSONTape, _ node: Int, prepending prepended: PrependedMember? = nil) -> Bool {
        check(tape, node, prepending: prepended).valid
    }

    /// The verdict, and how many values had to be materialized for the tree evaluator.
    /// Values stay on the tape except for keywords without a tape check and schemas that
    /// gather annotations; a `$dynamicRef` anywhere makes the whole run a tree evaluation.
    func check(_ tape: JSONTape, _ node: Int, prepending prepended: PrependedMember?) -> (valid: Bool, fallbacks: Int) {
        if let constant = root.constant { return (constant, 0) }
        if anchors.isUsed { return (isValid(Validator.materialize(tape, node, prepending: prepended)), 1) }
        let extraObject = prepended != nil && tape.kind(node) == .object ? node : -1
        var name = prepended?.name ?? ""
        let extraValue = prepended?.valueNode ?? -1
        return name.withUTF8 { name in
            tape.bytes.withUnsafeBufferPointer { bytes in
                let view = TapeView(
                    tapeRef: .passUnretained(tape), base: bytes.baseAddress!, extraObject: extraObject,
                    extraName: name, extraValue: extraValue)
                var evaluation = TapeEvaluation(view: view, anchors: anchors, maxDepth: maxDepth)
                let valid = evaluation.evaluate(root, node)
                return (valid, evaluation.fallbacks)
            }
        }
    }

    /// The value as a tree, with the prepended member in front.
    public static func materialize(_ tape: JSONTape, _ node: Int, prepending prepended: PrependedMember?) -> JSON {
        var value = tape.materialize(node)
        if let prepended, case .object(var object) = value {
            value = .null
            object.members.insert(JSONMember(key: prepended.name, value: tape.materialize(prepended.valueNode)), at: 0)
            value = .object(object)
        }
        return value
    }
}
