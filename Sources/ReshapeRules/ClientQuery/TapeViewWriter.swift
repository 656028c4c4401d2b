import ReshapeJSON

/// Writes a view made on a tape: the answer's text as it is, but for the array the rule points
/// at, which holds the page's records, each cut to `fields`. Byte for byte what serializing
/// the built view gives (`ClientView.apply(to:)`, then `serialized()`): canonical values are
/// copied from the tape, the others written by its writer.
struct TapeViewWriter {
    let tape: JSONTape
    /// `fields` as UTF-8 dot paths; nil: whole records.
    let fields: [[[UInt8]]]?
    let keyMember: [UInt8]?
    /// The page's records' nodes, in the view's order.
    let page: [Int]
    private(set) var output: [UInt8] = []

    init(tape: JSONTape, fields: [[String]]?, keyMember: String?, page: [Int]) {
        self.tape = tape
        self.fields = fields?.map { $0.map { Array($0.utf8) } }
        self.keyMember = keyMember.map { Array($0.utf8) }
        self.page = page
    }

    /// Writes the value at `node`, the value at `tokens` inside it replaced by the page.
    mutating func write(_ node: Int, replacing tokens: ArraySlice<String>) {
        guard let token = tokens.first else { return writePage() }
        switch tape.kind(node) {
        case .object:
            let name = Array(token.utf8)
            output.append(UInt8(ascii: "{"))
            var replaced = false
            var first = true
            tape.forEachMember(node) { nameNode, value in
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                copy(nameNode)
                output.append(UInt8(ascii: ":"))
                if !replaced, equals(nameNode, name) {
                    replaced = true
                    write(value, replacing: tokens.dropFirst())
                } else {
                    copy(value)
                }
            }
            output.append(UInt8(ascii: "}"))
        case .array:
            let index = JSON.arrayIndex(token)
            output.append(UInt8(ascii: "["))
            tape.forEachElement(node) { position, element in
                if position > 0 { output.append(UInt8(ascii: ",")) }
                if position == index {
                    write(element, replacing: tokens.dropFirst())
                } else {
                    copy(element)
                }
            }
            output.append(UInt8(ascii: "]"))
        default:
            copy(node)
        }
    }

    private mutating func writePage() {
        output.append(UInt8(ascii: "["))
        for (position, record) in page.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            if let fields {
                project(record, fields, keeping: keyMember)
            } else {
                copy(record)
            }
        }
        output.append(UInt8(ascii: "]"))
    }

    /// The record with only the members `paths` name (and `keeping`), in the record's order
    /// (`ClientView.project`).
    private mutating func project(_ record: Int, _ paths: [[[UInt8]]], keeping key: [UInt8]?) {
        guard tape.kind(record) == .object else { return copy(record) }
        output.append(UInt8(ascii: "{"))
        var first = true
        tape.forEachMember(record) { name, value in
            let whole = key.map { equals(name, $0) } == true || paths.contains { $0.count == 1 && equals(name, $0[0]) }
            var nested: [[[UInt8]]] = []
            if !whole {
                guard tape.kind(value) == .object else { return }
                nested = paths.filter { $0.count > 1 && equals(name, $0[0]) }.map { Array($0.dropFirst()) }
                guard !nested.isEmpty else { return }
            }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            copy(name)
            output.append(UInt8(ascii: ":"))
            if whole {
                copy(value)
            } else {
                project(value, nested, keeping: nil)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    private func equals(_ name: Int, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { tape.stringEquals(name, $0) }
    }

    /// Appends the value at `node` as compact canonical JSON: its text when it already is.
    private mutating func copy(_ node: Int) {
        guard tape.isCanonical(node) else { return tape.serialize(node, into: &output) }
        let range = tape.textRange(node)
        tape.bytes.withUnsafeBufferPointer { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }
}
