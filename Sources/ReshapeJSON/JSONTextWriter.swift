/// Writes one compact canonical JSON text from parts: literal punctuation, strings, whole
/// `JSON` values and tape nodes (copied byte for byte when their text is already canonical).
/// For output assembled around values that were never built as a tree, such as a pipeline's
/// records still on the upstream's tape. The caller is responsible for the JSON grammar.
public final class JSONTextWriter {
    /// Behind a pointer rather than a stored `var`, so each append skips the dynamic
    /// exclusivity check a class property would get.
    private let state: UnsafeMutablePointer<JSONWriter>
    private var writer: JSONWriter {
        @inline(__always) _read { yield state.pointee }
        @inline(__always) _modify { yield &state.pointee }
    }

    /// `capacity`: the expected output size, so the buffer rarely grows.
    public init(capacity: Int = 4096) {
        state = .allocate(capacity: 1)
        state.initialize(to: JSONWriter(pretty: false, capacity: capacity))
    }

    /// Writes into `buffer` (see `ByteSink.init(borrowing:)`) while it has room.
    init(borrowing buffer: UnsafeMutableBufferPointer<UInt8>) {
        state = .allocate(capacity: 1)
        state.initialize(to: JSONWriter(pretty: false, sink: ByteSink(borrowing: buffer)))
    }

    /// Runs `body` with a writer whose output becomes the returned array: written in place
    /// when it fits in `capacity` bytes, copied once from the writer's own memory when not.
    public static func bytes(capacity: Int, _ body: (JSONTextWriter) -> Void) -> [UInt8] {
        var spilled: [UInt8]? = nil
        let written = [UInt8](unsafeUninitializedCapacity: max(capacity, 64)) { buffer, count in
            let writer = JSONTextWriter(borrowing: buffer)
            body(writer)
            if writer.writer.sink.isBorrowing {
                count = writer.count
            } else {
                var copy: [UInt8] = []
                writer.copy(into: &copy)
                spilled = copy
                count = 0
            }
        }
        if let spilled { return spilled }
        // An estimate far above what was written (a few records out of a large document) would
        // keep its memory for as long as the answer lives, in a cache too: copy to fit instead.
        if written.capacity - written.count > max(4096, written.count / 8) {
            return written.withUnsafeBufferPointer { Array($0) }
        }
        return written
    }

    deinit {
        state.pointee.sink.release()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Appends punctuation or other text that is already JSON (`{`, `,`, `]`...).
    public func appendRaw(_ text: StaticString) {
        writer.sink.append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Appends bytes that are already JSON text.
    public func appendRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { writer.sink.append(base, count: $0.count) } }
    }

    /// Appends an integer as a JSON number, without a temporary string.
    public func appendInteger(_ value: Int) {
        withDecimalDigits(of: value) { writer.sink.append($0.baseAddress!, count: $0.count) }
    }

    /// Appends `text` as a quoted, escaped JSON string.
    public func appendString(_ text: String) { writer.writeString(text) }

    /// Appends a value.
    public func append(_ value: JSON) { writer.write(value) }

    /// Appends the value at `node`.
    public func append(_ tape: JSONTape, _ node: Int) { tape.write(node, to: &writer) }

    /// Appends the members of the object at `node` without its braces (`"a":1,"b":2`), or
    /// nothing for `{}`.
    public func appendMembers(of tape: JSONTape, _ node: Int) {
        if tape.isCanonical(node) {
            let range = tape.textRange(node)
            guard range.count > 2 else { return }
            tape.bytes.withUnsafeBufferPointer { all in
                writer.sink.append(all.baseAddress! + range.lowerBound + 1, count: range.count - 2)
            }
            return
        }
        var first = true
        tape.forEachMember(node) { name, value in
            if !first { writer.sink.append(UInt8(ascii: ",")) }
            first = false
            tape.write(name, to: &writer)
            writer.sink.append(UInt8(ascii: ":"))
            tape.write(value, to: &writer)
        }
    }

    /// Appends the object at `object` with one member in front: `{` + `namePrefix` (the
    /// member's name as JSON text and a colon, e.g. `"objectId":`) + the string at `value` +
    /// the object's own members + `}`. One copy per part when both nodes are canonical.
    public func appendObject(
        _ tape: JSONTape, _ object: Int, prepending namePrefix: UnsafeBufferPointer<UInt8>, value: Int
    ) {
        guard tape.isCanonical(object) && tape.isCanonical(value) else {
            writer.sink.append(UInt8(ascii: "{"))
            writer.sink.append(namePrefix.baseAddress!, count: namePrefix.count)
            append(tape, value)
            if tape.count(object) > 0 {
                writer.sink.append(UInt8(ascii: ","))
                appendMembers(of: tape, object)
            }
            writer.sink.append(UInt8(ascii: "}"))
            return
        }
        let valueText = tape.textRange(value)
        let objectText = tape.textRange(object)
        tape.bytes.withUnsafeBufferPointer { all in
            let base = all.baseAddress!
            writer.sink.reserve(namePrefix.count + valueText.count + objectText.count + 2)
            writer.sink.appendReserved(UInt8(ascii: "{"))
            writer.sink.appendReserved(namePrefix.baseAddress!, count: namePrefix.count)
            writer.sink.appendReserved(base + valueText.lowerBound, count: valueText.count)
            if objectText.count > 2 {
                writer.sink.appendReserved(UInt8(ascii: ","))
                // The members without the object's opening brace; its closing brace ends the record.
                writer.sink.appendReserved(base + objectText.lowerBound + 1, count: objectText.count - 1)
            } else {
                writer.sink.appendReserved(UInt8(ascii: "}"))
            }
        }
    }

    /// Bytes written so far.
    public var count: Int { writer.sink.count }

    /// Appends what was written to `output`.
    public func copy(into output: inout [UInt8]) {
        output.reserveCapacity(output.count + writer.sink.count)
        writer.sink.copy(into: &output)
    }
}
