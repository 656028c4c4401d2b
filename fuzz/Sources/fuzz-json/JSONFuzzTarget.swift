import FuzzSupport
import ReshapeJSON

// The input is a JSON document (or not). Properties of Reshape's one grammar:
// - the tape and the tree accept the same documents and fail with the same error;
// - for accepted documents, `tape.serialize(node)` is `tape.materialize(node).serialized()`
//   (root and a sample of inner nodes), and parsing that output gives the same tree and the
//   same bytes again (the compact form is canonical); the pretty form parses to the same tree;
// - rejected documents give an offset inside the input and the line and column of that
//   offset (lines split at LF, columns count Unicode scalars: docs/json.md);
// - a slice that does not start at index 0 parses exactly as the same bytes in an array.

@main enum JSONFuzzTarget {
    static func main() { runFuzzer(fuzzJSON) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let tape = Result { () throws(JSONParseError) in try JSONTape.parse(bytes) }
    let tree = Result { () throws(JSONParseError) in try JSON.parse(bytes) }

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
    require(error.line == line && error.column == column,
            "error \(error) at offset \(error.offset) should be at \(line):\(column)")
    require(!error.message.isEmpty, "an error without a message")
}
