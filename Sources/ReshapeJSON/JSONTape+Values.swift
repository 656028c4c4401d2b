// Leaving the tape: building a node as a `JSON` value for a step that changes it, and
// writing a node as canonical JSON (its own bytes when they already are).

extension JSONTape {
    /// The node as a `JSON` value (the tree `JSON.parse` would have built for its text).
    public func materialize(_ node: Int) -> JSON {
        switch kind(node) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(number(node))
        case .string: return .string(string(node))
        case .array:
            var elements: [JSON] = []
            elements.reserveCapacity(count(node))
            forEachElement(node) { _, element in elements.append(materialize(element)) }
            return .array(elements)
        case .object:
            var members: [JSONMember] = []
            members.reserveCapacity(count(node))
            forEachMember(node) { name, value in
                members.append(JSONMember(key: string(name), value: materialize(value)))
            }
            return .object(JSONObject(members))
        }
    }

    /// Appends the node as compact canonical JSON: exactly `materialize(node).serialized()`,
    /// but values whose text is already canonical are copied as they are.
    public func serialize(_ node: Int, into output: inout [UInt8]) {
        var writer = JSONWriter(pretty: false, capacity: max(256, Int(nodes[node].length) + 16))
        defer { writer.sink.release() }
        write(node, to: &writer)
        output.reserveCapacity(output.count + writer.sink.count)
        writer.sink.copy(into: &output)
    }

    func write(_ node: Int, to writer: inout JSONWriter) {
        bytes.withUnsafeBufferPointer { all in write(node, all.baseAddress!, to: &writer) }
    }

    private func write(_ node: Int, _ base: UnsafePointer<UInt8>, to writer: inout JSONWriter) {
        let n = nodes[node]
        if n.tag & TapeNode.nonCanonicalFlag == 0 {
            writer.sink.append(base + Int(n.offset), count: Int(n.length))
            return
        }
        switch kind(node) {
        case .string:
            withString(node) { writer.writeString(utf8: $0) }
        case .array:
            writer.sink.append(UInt8(ascii: "["))
            forEachElement(node) { index, element in
                if index > 0 { writer.sink.append(UInt8(ascii: ",")) }
                write(element, base, to: &writer)
            }
            writer.sink.append(UInt8(ascii: "]"))
        case .object:
            writer.sink.append(UInt8(ascii: "{"))
            var first = true
            forEachMember(node) { name, value in
                if !first { writer.sink.append(UInt8(ascii: ",")) }
                first = false
                write(name, base, to: &writer)
                writer.sink.append(UInt8(ascii: ":"))
                write(value, base, to: &writer)
            }
            writer.sink.append(UInt8(ascii: "}"))
        case .null, .false, .true, .number:
            writer.sink.append(base + Int(n.offset), count: Int(n.length))
        }
    }
}
