import ReshapeJSON

/// A value on its way through a pipeline that started from an upstream body, kept as the
/// upstream's parsed bytes for as long as the steps only read, filter or wrap it. A step that
/// must change values gets a tree (`materialized()`); the result is written out by copying
/// every untouched value's bytes. Both ways give the same JSON (tests hold them to it).
package struct TapeValue: Sendable {
    enum Core: Sendable {
        /// A built value: what steps without a tape path work on.
        case tree(JSON)
        /// A value of the tape, untouched.
        case node(Int)
        /// An array of records, most still on the tape (after `keyed-to-array` or `validate`).
        case records(RecordList)
    }

    let tape: JSONTape?
    var core: Core
    /// Member names of `wrap` steps not yet applied, innermost first.
    var envelopes: [String] = []

    init(_ value: JSON) {
        tape = nil
        core = .tree(value)
    }

    init(tape: JSONTape) {
        self.tape = tape
        core = .node(tape.root)
    }

    /// The value as a tree.
    package func materialized() -> JSON {
        var value: JSON
        switch core {
        case .tree(let tree): value = tree
        case .node(let node): value = tape!.materialize(node)
        case .records(let list): value = .array(list.records.map { list.materialize($0, tape!) })
        }
        for name in envelopes { value = .object(JSONObject([JSONMember(key: name, value: value)])) }
        return value
    }

    /// About how many bytes `serialize` writes, to size its buffer.
    var expectedSize: Int {
        guard let tape else { return 4096 }
        switch core {
        case .node(let node): return tape.textRange(node).count
        case .records(let list): return tape.bytes.count + list.records.count * (list.keyField.utf8.count + 4)
        case .tree: return tape.bytes.count
        }
    }

    /// Appends the value as compact canonical JSON (what `materialized().serialized()` gives).
    package func serialize(into writer: JSONTextWriter) {
        for name in envelopes.reversed() {
            writer.appendRaw("{")
            writer.appendString(name)
            writer.appendRaw(":")
        }
        switch core {
        case .tree(let tree): writer.append(tree)
        case .node(let node): writer.append(tape!, node)
        case .records(let list): list.serialize(into: writer, tape!)
        }
        for _ in envelopes { writer.appendRaw("}") }
    }
}

/// An array of records that are mostly still on the tape.
struct RecordList: Sendable {
    enum Record: Sendable {
        /// A tape object, with (when `name >= 0`) a first member `keyField` whose value is the
        /// string node `name` (keyed-to-array's record name). The object has no `keyField` member.
        case onTape(name: Int, value: Int)
        /// A record some step built or changed.
        case tree(JSON)
    }

    /// The member keyed-to-array adds; unused when no record has a name.
    let keyField: String
    var records: [Record]

    func materialize(_ record: Record, _ tape: JSONTape) -> JSON {
        switch record {
        case .tree(let value): return value
        case .onTape(let name, let value):
            guard name >= 0, case .object(var object) = tape.materialize(value) else { return tape.materialize(value) }
            object.members.insert(JSONMember(key: keyField, value: .string(tape.string(name))), at: 0)
            return .object(object)
        }
    }

    func serialize(into writer: JSONTextWriter, _ tape: JSONTape) {
        let namePrefix = JSON.string(keyField).serialized() + Array(":".utf8)
        namePrefix.withUnsafeBufferPointer { namePrefix in
            writer.appendRaw("[")
            for (i, record) in records.enumerated() {
                if i > 0 { writer.appendRaw(",") }
                switch record {
                case .tree(let value): writer.append(value)
                case .onTape(let name, let value) where name < 0: writer.append(tape, value)
                case .onTape(let name, let value): writer.appendObject(tape, value, prepending: namePrefix, value: name)
                }
            }
            writer.appendRaw("]")
        }
    }
}
