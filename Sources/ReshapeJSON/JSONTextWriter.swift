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

    /// Bytes written so far.
    public var count: Int { writer.sink.count }

    /// Appends what was written to `output`.
    public func copy(into output: inout [UInt8]) {
        output.reserveCapacity(output.count + writer.sink.count)
        writer.sink.copy(into: &output)
    }
}
