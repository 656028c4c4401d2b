import ReshapeTestSupport
import XCTest

@testable import ReshapeJSON

/// `JSONTape` must accept exactly what `JSON.parse` accepts, fail with exactly the same error,
/// and give back (node by node, or serialized) what the tree `JSON.parse` builds and the tree
/// writer writes. `JSON.parse` materializes the tape, so this holds the tape's readers to it.
final class JSONTapeTests: XCTestCase {

    // MARK: - The agreement check

    private func treeParse(_ bytes: [UInt8], _ options: JSONParseOptions) -> Result<JSON, JSONParseError> {
        do { return .success(try JSON.parse(bytes, options: options)) } catch { return .failure(error) }
    }

    private func tapeParse(_ bytes: [UInt8], _ options: JSONParseOptions) -> Result<JSONTape, JSONParseError> {
        do { return .success(try JSONTape.parse(bytes, options: options)) } catch { return .failure(error) }
    }

    private func serialized(_ tape: JSONTape, _ node: Int) -> [UInt8] {
        var output: [UInt8] = []
        tape.serialize(node, into: &output)
        return output
    }

    private func show(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? text + "… (\(bytes.count) bytes)" : text
    }

    private func show(_ error: JSONParseError) -> String { "\(error) @\(error.offset)" }

    /// Parses `bytes` both ways and checks the verdicts, errors and results agree. Returns the
    /// tape when both accepted, or the (shared) error when both rejected.
    @discardableResult
    private func assertAgrees(
        _ bytes: [UInt8], options: JSONParseOptions = .init(),
        file: StaticString = #filePath, line: UInt = #line
    ) -> Result<JSONTape, JSONParseError>? {
        let tree = treeParse(bytes, options)
        let tape = tapeParse(bytes, options)
        switch (tree, tape) {
        case (.failure(let treeError), .failure(let tapeError)):
            XCTAssertEqual(show(tapeError), show(treeError), "errors differ for \(show(bytes))", file: file, line: line)
            XCTAssertEqual(tapeError, treeError, file: file, line: line)
            return .failure(tapeError)
        case (.success(let value), .success(let tape)):
            let canonical = value.serialized()
            XCTAssertEqual(
                show(serialized(tape, tape.root)), show(canonical), "serialize for \(show(bytes))", file: file,
                line: line)
            XCTAssertEqual(
                show(tape.materialize(tape.root).serialized()), show(canonical), "materialize for \(show(bytes))",
                file: file, line: line)
            XCTAssertEqual(tape.bytes, bytes, file: file, line: line)
            let end = verifyNode(tape, tape.root, value, options, file: file, line: line)
            XCTAssertEqual(end, tape.nodeCount, "node count for \(show(bytes))", file: file, line: line)
            return .success(tape)
        case (.success, .failure(let tapeError)):
            XCTFail("tree accepted, tape rejected with \(show(tapeError)): \(show(bytes))", file: file, line: line)
        case (.failure(let treeError), .success):
            XCTFail("tree rejected with \(show(treeError)), tape accepted: \(show(bytes))", file: file, line: line)
        }
        return nil
    }

    /// Checks one node (and everything inside it) against the tree's value for it;
    /// returns the index of the node after it.
    private func verifyNode(
        _ tape: JSONTape, _ node: Int, _ value: JSON, _ options: JSONParseOptions,
        file: StaticString, line: UInt
    ) -> Int {
        guard node < tape.nodeCount else {
            XCTFail("node \(node) past the end (\(tape.nodeCount))", file: file, line: line)
            return tape.nodeCount
        }
        let text = Array(tape.bytes[tape.textRange(node)])
        let canonical = value.serialized()
        // The flag is exactly "the source text is what the writer would write".
        XCTAssertEqual(
            tape.isCanonical(node), text == canonical,
            "isCanonical of node \(node) \(show(text)) vs \(show(canonical))", file: file, line: line)
        XCTAssertEqual(
            serialized(tape, node), canonical, "serialize node \(node) \(show(text))", file: file, line: line)
        XCTAssertEqual(
            tape.materialize(node).serialized(), canonical, "materialize node \(node)", file: file, line: line)
        // The node's text range holds exactly its value.
        do {
            let alone = try JSON.parse(text, options: options)
            XCTAssertEqual(alone.serialized(), canonical, "text range of node \(node)", file: file, line: line)
        } catch {
            XCTFail("text range of node \(node) does not parse: \(error): \(show(text))", file: file, line: line)
        }
        switch value {
        case .null, .bool, .number:
            let expected: JSONTape.Kind
            switch value {
            case .null: expected = .null
            case .bool(let flag): expected = flag ? .true : .false
            default: expected = .number
            }
            XCTAssertEqual(tape.kind(node), expected, file: file, line: line)
            XCTAssertEqual(tape.count(node), 0, file: file, line: line)
            XCTAssertEqual(tape.next(node), node + 1, file: file, line: line)
            if case .number(let number) = value {
                XCTAssertEqual(tape.number(node).text, number.text, file: file, line: line)
                XCTAssertEqual(tape.number(node).text, String(decoding: text, as: UTF8.self), file: file, line: line)
            }
            return node + 1
        case .string(let string):
            verifyString(tape, node, string, file: file, line: line)
            return node + 1
        case .array(let elements):
            XCTAssertEqual(tape.kind(node), .array, file: file, line: line)
            XCTAssertEqual(tape.count(node), elements.count, file: file, line: line)
            var child = node + 1
            var visited: [(Int, Int)] = []
            tape.forEachElement(node) { visited.append(($0, $1)) }
            XCTAssertEqual(visited.map { $0.0 }, Array(elements.indices), file: file, line: line)
            for (i, element) in elements.enumerated() {
                if i < visited.count { XCTAssertEqual(visited[i].1, child, file: file, line: line) }
                child = verifyNode(tape, child, element, options, file: file, line: line)
            }
            XCTAssertEqual(tape.next(node), child, "next of array node \(node)", file: file, line: line)
            return child
        case .object(let object):
            XCTAssertEqual(tape.kind(node), .object, file: file, line: line)
            XCTAssertEqual(tape.count(node), object.count, file: file, line: line)
            var child = node + 1
            var visited: [(Int, Int)] = []
            tape.forEachMember(node) { visited.append(($0, $1)) }
            XCTAssertEqual(visited.count, object.count, file: file, line: line)
            for (i, member) in object.members.enumerated() {
                if i < visited.count {
                    XCTAssertEqual(visited[i].0, child, file: file, line: line)
                    XCTAssertEqual(visited[i].1, child + 1, file: file, line: line)
                }
                child = verifyNode(tape, child, .string(member.key), options, file: file, line: line)
                let found = Array(member.key.utf8).withUnsafeBufferPointer { tape.member(node, named: $0) }
                XCTAssertEqual(found, child, "member(named: \(member.key))", file: file, line: line)
                child = verifyNode(tape, child, member.value, options, file: file, line: line)
            }
            XCTAssertEqual(tape.next(node), child, "next of object node \(node)", file: file, line: line)
            return child
        }
    }

    private func verifyString(_ tape: JSONTape, _ node: Int, _ string: String, file: StaticString, line: UInt) {
        let utf8 = Array(string.utf8)
        let text = tape.bytes[tape.textRange(node)]
        XCTAssertEqual(tape.kind(node), .string, file: file, line: line)
        XCTAssertEqual(tape.count(node), 0, file: file, line: line)
        XCTAssertEqual(tape.next(node), node + 1, file: file, line: line)
        XCTAssertEqual(tape.isEscaped(node), text.contains(UInt8(ascii: "\\")), file: file, line: line)
        XCTAssertEqual(Array(tape.string(node).utf8), utf8, file: file, line: line)
        XCTAssertEqual(tape.withString(node) { Array($0) }, utf8, file: file, line: line)
        XCTAssertEqual(tape.scalarCount(node), string.unicodeScalars.count, file: file, line: line)
        XCTAssertTrue(
            utf8.withUnsafeBufferPointer { tape.stringEquals(node, $0) }, "stringEquals \(string)", file: file,
            line: line)
        XCTAssertFalse((utf8 + [0x61]).withUnsafeBufferPointer { tape.stringEquals(node, $0) }, file: file, line: line)
        if !utf8.isEmpty {
            XCTAssertFalse(
                Array(utf8.dropLast()).withUnsafeBufferPointer { tape.stringEquals(node, $0) }, file: file, line: line)
            var changed = utf8
            changed[0] ^= 0x01
            XCTAssertFalse(changed.withUnsafeBufferPointer { tape.stringEquals(node, $0) }, file: file, line: line)
        }
    }

    private func agrees(
        _ text: String, options: JSONParseOptions = .init(),
        file: StaticString = #filePath, line: UInt = #line
    ) -> Result<JSONTape, JSONParseError>? {
        assertAgrees(Array(text.utf8), options: options, file: file, line: line)
    }

    /// Both accept `text`, and the tape writes `expected`.
    private func assertAccepted(
        _ text: String, writes expected: String? = nil, options: JSONParseOptions = .init(),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        switch agrees(text, options: options, file: file, line: line) {
        case .success(let tape)?:
            if let expected {
                XCTAssertEqual(
                    String(decoding: serialized(tape, tape.root), as: UTF8.self), expected, file: file, line: line)
            }
        case .failure(let error)?:
            XCTFail("rejected \(text): \(show(error))", file: file, line: line)
        case nil:
            break
        }
    }

    /// Both reject `bytes` with the same error, at `line`:`column`, whose message has `fragment`.
    private func assertRejected(
        _ bytes: [UInt8], _ errorLine: Int? = nil, _ column: Int? = nil, _ fragment: String = "",
        options: JSONParseOptions = .init(), file: StaticString = #filePath, line: UInt = #line
    ) {
        switch assertAgrees(bytes, options: options, file: file, line: line) {
        case .failure(let error)?:
            if let errorLine { XCTAssertEqual(error.line, errorLine, show(error), file: file, line: line) }
            if let column { XCTAssertEqual(error.column, column, show(error), file: file, line: line) }
            if !fragment.isEmpty {
                XCTAssertTrue(
                    error.message.contains(fragment), "\(error.message) lacks '\(fragment)'", file: file, line: line)
            }
        case .success?:
            XCTFail("accepted \(show(bytes))", file: file, line: line)
        case nil:
            break
        }
    }

    private func assertRejected(
        _ text: String, _ errorLine: Int? = nil, _ column: Int? = nil, _ fragment: String = "",
        options: JSONParseOptions = .init(), file: StaticString = #filePath, line: UInt = #line
    ) {
        assertRejected(Array(text.utf8), errorLine, column, fragment, options: options, file: file, line: line)
    }

    // MARK: - 1. Everything JSONParserTests accepts or rejects

    func testRoundTripsAgree() {
        for text in [
            #"{"z":12345678901234567890,"a":0.1,"m":1.5E+300,"n":-0,"e":1e-7}"#,
            #"[true,false,null,"",[],{},[[]],{"a":{}}]"#,
            #"{"b":1,"a":2,"c":{"y":1,"x":2}}"#,
            #"["héllo wörld ✓ 😀","a\"b\\c","line\nbreak\ttab","\u0000\u001f","/ not escaped"]"#,
        ] {
            assertAccepted(text, writes: text)
        }
        for scalar in ["0", "-0", "1.5E+300", "\"\"", "\"x\"", "true", "false", "null", "[]", "{}"] {
            assertAccepted(scalar, writes: scalar)
            assertAccepted(" \n\(scalar)\t ", writes: scalar)
        }
    }

    func testEscapesAndSurrogatesAgree() {
        assertAccepted(#""\u00e9\ud83d\ude00\/\b\f\r""#, writes: "\"é😀/\\b\\f\\r\"")
        assertAccepted(#""\uD83D\uDE00\u00C9\u0041""#, writes: "\"😀ÉA\"")
        assertAccepted(
            #"["\u0000","\u001F","\u007f","\u2028","\uffff"]"#,
            writes: "[\"\\u0000\",\"\\u001f\",\"\u{7F}\",\"\u{2028}\",\"\u{FFFF}\"]")
        assertAccepted(#""\"\\\/\b\f\n\r\t""#, writes: #""\"\\/\b\f\n\r\t""#)
    }

    func testLongStringsAcrossTheEightByteFastPathAgree() {
        let ascii = String(repeating: "abcdefgh", count: 50)
        assertAccepted("\"\(ascii)\"")
        assertAccepted("\"\(ascii + "é" + ascii + "\\n" + ascii)\"")
        for length in 0...20 {
            let body = String(repeating: "x", count: length)
            assertAccepted("\"\(body)\"")
            assertAccepted("[\"\(body)é\",\"é\(body)\",\"\(body)\\t\"]")
        }
    }

    func testByteSlicesAndWhitespaceAgree() {
        let bytes = Array("xx[1,{\"a\":true}]yy".utf8)
        assertAgrees(Array(bytes[2..<16]))
        assertRejected(Array(bytes[0..<16]), 1, 1, "expected a value")
        assertAccepted("[null]")
        assertAccepted("\"é\"")
        assertAccepted(" \t\r\n[ 1 , 2 ]\n ", writes: "[1,2]")
    }

    func testRejectionsCarryTheSameErrors() {
        assertRejected("", 1, 1, "end of input")
        assertRejected("[1,2,]", 1, 6, "trailing comma")
        assertRejected("{\"a\":1,}", 1, 8, "trailing comma")
        assertRejected("{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, "duplicate member name \"a\"")
        assertRejected("[01]", 1, 2, "leading zeros")
        assertRejected("[1.]", 1, 4, "decimal point")
        assertRejected("[1e]", 1, 4, "exponent")
        assertRejected("[-]", 1, 3, "after '-'")
        assertRejected("[NaN]", 1, 2, "expected a value")
        assertRejected("[Infinity]", 1, 2, "expected a value")
        assertRejected("// c\n1", 1, 1, "expected a value")
        assertRejected("[1] x", 1, 5, "after the JSON value")
        assertRejected("[tru]", 1, 2, "expected 'true'")
        assertRejected("\"abc", 1, 1, "unterminated string")
        assertRejected("\"a\tb\"", 1, 3, "control character 0x09")
        assertRejected("\"é\tb\"", 1, 3, "control character 0x09")
        assertRejected("\"é\\n\u{1}\"", 1, 5, "control character 0x01")
        assertRejected("[\"abcdefghijé", 1, 2, "unterminated string")
        assertRejected(#""\ud800""#, 1, 2, "lone high surrogate")
        assertRejected(#""\udc00""#, 1, 2, "lone low surrogate")
        assertRejected(#""\ud800\u0041""#, 1, 2, "lone high surrogate")
        assertRejected(#""\x""#, 1, 2, "invalid escape")
        assertRejected(#""\u12g4""#, 1, 2, "hex digits")
        assertRejected("{\"a\" 1}", 1, 6, "expected ':'")
        assertRejected("{a:1}", 1, 2, "member name in double quotes")
        assertRejected("[1 2]", 1, 4, "expected ',' or ']'")
        assertRejected("{\"é\": 1, \"b\" 2}", 1, 14, "expected ':'")
        assertRejected("{\n  \"a\": tru\n}", 2, 8, "invalid literal, expected 'true'")
    }

    func testTruncationsAndOddCornersAgree() {
        // Every prefix of a document that uses each construct ends somewhere different.
        let document = "{\"a\" : [1, -2.5e+3, true, false, null, \"s\\u00e9\\ud83d\\ude00\\n\"], \"b\":{}, \"é\":[[]]}"
        let bytes = Array(document.utf8)
        for end in 0...bytes.count { assertAgrees(Array(bytes[..<end])) }
        for text in [
            "[", "{", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "[1", "[1,", "-", "t", "nul", "fals",
            "1e+", "0.", "\"\\u12", "\"\\", "\"\\ud800\\", "\"\\ud800\\u", "\"\\ud800\\udc0", "[1]]", "{}}",
            "{,}", "[,]", "[1,,2]", "{\"a\"::1}", "{\"a\":1 \"b\":2}", "00", "-01", "1.e5", ".5", "+1",
            "[\"\u{7F}\"]", "'a'", "[true false]", "{\"a\":1}x", "\u{FEFF}1", "\"\\U0041\"",
        ] {
            assertAgrees(Array(text.utf8))
        }
    }

    func testInvalidUTF8AndByteOrderMarkAgree() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xE2, 0x82],
            [0x22, 0xF0, 0x9F, 0x98, 0x22], [0x22, 0x80, 0x22], [0x5B, 0xC3, 0xA9, 0x5D],
        ] {
            assertRejected(bytes)
        }
        assertRejected([0x22, 0x61, 0xC3, 0x22], 1, 3, "UTF-8")
        assertRejected([0xEF, 0xBB, 0xBF, 0x31], 1, 1, "byte order mark")
        assertRejected([0xEF, 0xBB, 0xBF], 1, 1, "byte order mark")
        assertRejected([0xEF, 0xBB], 1, 1)
    }

    func testDepthLimitAgrees() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        assertRejected(deep, 1, 513, "nesting deeper than 512")
        assertAccepted(deep, writes: deep, options: JSONParseOptions(maxDepth: 600))
        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        assertAccepted(atLimit, writes: atLimit)
        let objects = String(repeating: "{\"a\":", count: 512) + "1" + String(repeating: "}", count: 512)
        assertAccepted(objects, writes: objects)
        assertRejected("[" + objects + "]", 1, 5 * 511 + 2, "nesting deeper than 512")
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        assertRejected(hostile, 1, 5 * 512 + 1, "nesting deeper than 512")
        assertRejected(String(repeating: "[", count: 100_000), 1, 513, "nesting deeper than 512")
        assertRejected("[[1]]", 1, 2, "nesting deeper than 1", options: JSONParseOptions(maxDepth: 1))
        assertAccepted("[1]", options: JSONParseOptions(maxDepth: 1))
    }

    func testDuplicatesInLargeObjectsAgree() {
        let members = (0..<50).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        assertAccepted("{\(members)}")
        assertRejected("{\(members),\"k7\":1}", 1, nil, "duplicate member name \"k7\"")
    }

    func testDuplicatesAroundTheTableSwitchAndAfterGrowthAgree() {
        for size in [1, 2, 15, 16, 17, 18, 31, 32, 33, 40, 64, 65, 5000] {
            let members = (0..<size).map { "\"key-\($0)\":\($0)" }.joined(separator: ",")
            assertAccepted("{\(members)}")
            for duplicate in Set([0, size / 2, size - 1]) {
                assertRejected(
                    "{\(members),\"key-\(duplicate)\":true}", 1, nil, "duplicate member name \"key-\(duplicate)\"")
                // The same name spelled with an escape, and the duplicate in the middle of the object.
                assertRejected(
                    "{\(members),\"\\u006bey-\(duplicate)\":true}", 1, nil, "duplicate member name \"key-\(duplicate)\""
                )
                let head = (0..<size).map { "\"key-\($0)\":\($0)" }
                let middle = (head[..<(size / 2 + 1)] + ["\"key-\(duplicate / 2)\":0"] + head[(size / 2 + 1)...])
                    .joined(separator: ",")
                assertRejected("{\(middle)}", 1, nil, "duplicate member name \"key-\(duplicate / 2)\"")
            }
        }
    }

    /// Documents with a duplicate member name after a member whose value is an object:
    /// (text before the duplicate, the duplicate and the rest, the duplicated name).
    private static let duplicatesAfterNestedObjects: [(String, String, String)] = {
        let large = "{" + (0..<40).map { "\"n\($0)\":\($0)" }.joined(separator: ",") + "}"
        let parent = (0..<30).map { "\"n\($0)\":\(large)" }.joined(separator: ",")
        return [
            (#"{"a":{"x":1},"x":2,"#, #""a":3}"#, "a"),
            (#"{"a":{"x":1},"#, #""a":3}"#, "a"),
            (#"{"a":[{"x":1}],"b":{"y":{}},"c":0,"#, #""b":1}"#, "b"),
            ("{\"n1\":\(large),\"n2\":0,", "\"n1\":1}", "n1"),
            ("{\"n0\":0,\"n1\":\(large),\"n2\":0,", "\"n1\":1}", "n1"),
            ("{\(parent),", "\"n29\":1}", "n29"),
            ("{\(parent),", "\"n0\":{\"n0\":1}}", "n0"),
            ("{\"x\":\(large.dropLast()),", "\"n3\":1}}", "n3"),
        ]
    }()

    func testDuplicatesAcrossNestedObjectsAgree() {
        // Names of a nested object are not duplicates of its parent's, and the parent's check
        // continues correctly after a nested (small or large) object closes.
        let large = "{" + (0..<40).map { "\"n\($0)\":\($0)" }.joined(separator: ",") + "}"
        assertAccepted(#"{"a":{"a":1,"b":2},"b":{"a":1}}"#)
        assertAccepted("{\"n1\":\(large),\"n2\":[\(large),\(large)],\"n3\":0}")
        let parent = (0..<30).map { "\"n\($0)\":\(large)" }.joined(separator: ",")
        assertAccepted("{\(parent)}")
        for (head, tail, name) in JSONTapeTests.duplicatesAfterNestedObjects {
            assertRejected(head + tail, 1, head.unicodeScalars.count + 1, "duplicate member name \"\(name)\"")
        }
    }

    func testSortedKeyedCollectionsStillFindEveryDuplicate() {
        // Names in increasing order skip the table; a repeat anywhere must still be caught.
        let names = (0..<300).map { "k" + String(repeating: "0", count: 4 - String($0).count) + String($0) }
        let members = names.map { "\"\($0)\":{}" }
        guard case .success? = agrees("{" + members.joined(separator: ",") + "}") else {
            return XCTFail("sorted names refused")
        }
        for (position, repeated) in [(300, 299), (300, 0), (300, 150), (150, 149), (20, 3), (200, 17)] {
            var withRepeat = members
            withRepeat.insert("\"\(names[repeated])\":1", at: position)
            guard case .failure(let error)? = agrees("{" + withRepeat.joined(separator: ",") + "}") else {
                XCTFail("repeat of \(names[repeated]) at \(position) accepted")
                continue
            }
            XCTAssertEqual(error.message, "duplicate member name \"\(names[repeated])\"")
        }
        // An escaped spelling of an earlier name ends the ordered path and is found by the table.
        let escaped = members + ["\"k\\u0030000\":1"]
        guard case .failure(let error)? = agrees("{" + escaped.joined(separator: ",") + "}") else {
            return XCTFail("escaped repeat accepted")
        }
        XCTAssertEqual(error.message, "duplicate member name \"k0000\"")
    }

    func testTreeParserFindsDuplicatesAfterANestedObject() {
        // A tree parser Reshape once had lost a parent's pending name hash when a nested object
        // closed, and then missed duplicates of names from that member on. Both entry points
        // (`JSONTape.parse` and `JSON.parse`) must reject these.
        for (head, tail, name) in JSONTapeTests.duplicatesAfterNestedObjects {
            let bytes = Array((head + tail).utf8)
            XCTAssertNil(try? JSONTape.parse(bytes), name)
            XCTAssertThrowsError(try JSON.parse(bytes), name) { error in
                XCTAssertEqual((error as? JSONParseError)?.message, "duplicate member name \"\(name)\"")
                XCTAssertEqual((error as? JSONParseError)?.offset, head.utf8.count)
            }
        }
    }

    func testRepeatedNamesAndValuesInALargeDocumentAgree() {
        let padding = String(repeating: " ", count: 4096)
        let names = (0...20).map { String(repeating: "k", count: $0) } + ["é", "a\\\"b", "abcdefgh", "abcdefghi"]
        let record = "{" + names.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let text = "[" + Array(repeating: record, count: 3).joined(separator: ",") + "]"
        assertAccepted(text + padding, writes: text)
        assertAccepted(text, writes: text)
        assertRejected(#"[{"abc":1},{"abc":1,"abc":2}]"# + padding, 1, 21, "duplicate member name \"abc\"")
        assertRejected(#"[{"":1},{"":1,"":2}]"# + padding, 1, 15, "duplicate member name \"\"")

        let values =
            (0...20).map { String(repeating: "v", count: $0) } + ["abcdefghijklmnop", "abcdefghijklmnoq", "é", "a\\nb"]
        let valueRecord = "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let valueText = "[" + Array(repeating: valueRecord, count: 3).joined(separator: ",") + "]"
        assertAccepted(valueText + padding, writes: valueText)
    }

    func testDuplicateSpelledWithAnEscapeAgrees() {
        assertRejected(#"{"ab":1,"\u0061b":2}"#, 1, 9, "duplicate member name \"ab\"")
        assertRejected(#"{"a":1,"\u0061":2}"#, 1, 8, "duplicate member name \"a\"")
        assertRejected(#"{"\u0061":1,"a":2}"#, 1, 13, "duplicate member name \"a\"")
        assertRejected(#"{"\/":1,"/":2}"#, 1, 9, "duplicate member name \"/\"")
        assertRejected(#"{"é":1,"\u00E9":2}"#, 1, 8, "duplicate member name \"é\"")
        assertRejected(#"{"😀":1,"\ud83d\ude00":2}"#, 1, 8, "duplicate member name \"😀\"")
        assertRejected(#"{"a\"":1,"a\u0022":2}"#, 1, 10, "duplicate member name \"a\"\"")
        assertAccepted(#"{"a":1,"\u0061b":2,"A":3,"\u0041b":4}"#, writes: #"{"a":1,"ab":2,"A":3,"Ab":4}"#)
    }

    func testCanonicallyEquivalentNamesAreDistinctOnTheTape() throws {
        // The one deliberate difference: the tape compares names by code points, so an NFC
        // and an NFD spelling of "é" are two names (RFC 8259 and JSON Schema equality).
        for text in ["{\"\u{E9}\":1,\"e\u{301}\":2}", "{\"e\u{301}\":1,\"\u{E9}\":2}", "{\"\u{E9}\":1,\"e\\u0301\":2}"]
        {
            let bytes = Array(text.utf8)
            let tape = try JSONTape.parse(bytes)
            XCTAssertEqual(tape.count(tape.root), 2)
            let nfc = Array("\u{E9}".utf8).withUnsafeBufferPointer { tape.member(tape.root, named: $0) }
            let nfd = Array("e\u{301}".utf8).withUnsafeBufferPointer { tape.member(tape.root, named: $0) }
            XCTAssertNotNil(nfc)
            XCTAssertNotNil(nfd)
            XCTAssertNotEqual(nfc, nfd)
            XCTAssertEqual(tape.scalarCount(tape.root + 1) + tape.scalarCount(tape.root + 3), 3)
            // The serialized tape keeps both spellings apart.
            var output: [UInt8] = []
            tape.serialize(tape.root, into: &output)
            XCTAssertEqual(
                String(decoding: output, as: UTF8.self), text.replacingOccurrences(of: "\\u0301", with: "\u{301}"))
            // Past 16 members too (the hashed check).
            let filler = (0..<20).map { ",\"f\($0)\":0" }.joined()
            XCTAssertNoThrow(try JSONTape.parse(Array((String(text.dropLast()) + filler + "}").utf8)))
        }
    }

    // MARK: - 2. Randomized

    func testRandomValuesAgreeCompactPrettyAndMessy() throws {
        var random = SplitMix64(seed: 1_234)
        for round in 0..<400 {
            let value = JSONGenerator.value(&random, depth: 0)
            let canonical = value.serialized()
            let messy = JSONGenerator.messy(value, &random)
            let escaped = JSONGenerator.messy(value, &random, whitespace: 0, escapes: 2)
            for (spelling, bytes) in [
                ("compact", canonical), ("pretty", value.serialized(pretty: true)),
                ("messy", messy), ("escapes only", escaped),
            ] {
                guard case .success(let tape)? = assertAgrees(bytes) else {
                    return XCTFail("round \(round), \(spelling): \(show(bytes))")
                }
                XCTAssertEqual(serialized(tape, tape.root), canonical, "round \(round), \(spelling)")
                if spelling == "compact" { XCTAssertTrue(tape.isCanonical(tape.root), "round \(round)") }
            }
        }
    }

    func testLargeRandomDocumentsAgree() {
        // A large document, with names and values repeating.
        var random = SplitMix64(seed: 5)
        let value = JSON.array((0..<300).map { _ in JSONGenerator.value(&random, depth: 1) })
        let compact = value.serialized()
        XCTAssertGreaterThan(compact.count, 4096)
        guard case .success(let tape)? = assertAgrees(compact) else { return XCTFail("rejected") }
        XCTAssertTrue(tape.isCanonical(tape.root))
        XCTAssertEqual(tape.count(tape.root), 300)
        assertAgrees(value.serialized(pretty: true))
        assertAgrees(JSONGenerator.messy(value, &random, whitespace: 20, escapes: 30))
    }

    func testMutatedDocumentsFailIdentically() {
        var random = SplitMix64(seed: 11)
        var failures = 0
        var agreed = 0
        for round in 0..<6000 {
            let value = JSONGenerator.value(&random, depth: 0)
            var bytes: [UInt8]
            switch round % 4 {
            case 0, 1: bytes = value.serialized()
            case 2: bytes = value.serialized(pretty: true)
            default: bytes = JSONGenerator.messy(value, &random)
            }
            JSONGenerator.mutate(&bytes, &random)
            switch assertAgrees(bytes) {
            case .failure?:
                failures += 1
                agreed += 1
            case .success?: agreed += 1
            case nil: break
            }
        }
        XCTAssertEqual(agreed, 6000)
        XCTAssertGreaterThan(failures, 2000, "mutations should mostly break documents")
    }

    func testRandomDuplicatesAgree() {
        // Objects of every size around the 16-member switch, with one name repeated (spelled
        // with or without escapes) at a random later position.
        var random = SplitMix64(seed: 99)
        for round in 0..<600 {
            let size = 1 + (round % 3 == 0 ? random.below(200) : random.below(40))
            var keys = Set<String>()
            var members: [(String, JSON)] = []
            while members.count < size {
                let key = JSONGenerator.string(&random)
                if keys.insert(key).inserted { members.append((key, JSONGenerator.value(&random, depth: 3))) }
            }
            let original = random.below(size)
            let position = original + 1 + random.below(size - original)
            members.insert((members[original].0, .null), at: position)
            var text: [UInt8] = [UInt8(ascii: "{")]
            var expectedOffset = 0
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { text.append(UInt8(ascii: ",")) }
                if i == position { expectedOffset = text.count }
                JSONGenerator.writeMessyString(key, &random, escapes: round % 2 == 0 ? 0 : 3, into: &text)
                text.append(UInt8(ascii: ":"))
                text += value.serialized()
            }
            text.append(UInt8(ascii: "}"))
            guard case .failure(let error)? = assertAgrees(text) else {
                XCTFail("round \(round) accepted")
                continue
            }
            XCTAssertEqual(error.message, "duplicate member name \"\(members[original].0)\"", "round \(round)")
            XCTAssertEqual(error.offset, expectedOffset, "round \(round)")
        }
    }

    // MARK: - 3. Canonical flags

    private func parsed(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONTape {
        guard case .success(let tape)? = agrees(text, file: file, line: line) else {
            XCTFail("rejected \(text)", file: file, line: line)
            throw JSONParseError(message: "rejected", offset: 0, line: 0, column: 0)
        }
        return tape
    }

    private func allNodes(_ tape: JSONTape) -> [Int] { Array(0..<tape.nodeCount) }

    func testCompactCanonicalDocumentIsCanonicalThroughout() throws {
        let text = #"{"a":[1,-0,1.5E+300,{"b":"c\n\"\\\b\f\r\t\u0000\u001f"}],"d":null,"é😀":true,"":false,"/":"/"}"#
        let tape = try parsed(text)
        XCTAssertTrue(tape.isCanonical(tape.root))
        for node in allNodes(tape) { XCTAssertTrue(tape.isCanonical(node), "node \(node)") }
        XCTAssertEqual(String(decoding: serialized(tape, tape.root), as: UTF8.self), text)
    }

    func testNonCanonicalSpellingsAreFlaggedAndRewritten() throws {
        for (text, expected) in [
            ("[\"\\/\"]", "[\"/\"]"),
            ("[\"\\u0041\"]", "[\"A\"]"),
            ("[\"\\u001F\"]", "[\"\\u001f\"]"),
            ("[\"\\u00e9\"]", "[\"é\"]"),
            ("[\"\\ud83d\\ude00\"]", "[\"😀\"]"),
            ("[\"\\u000a\"]", "[\"\\n\"]"),
            ("[\"\\u0008\\u0009\\u000c\\u000d\"]", "[\"\\b\\t\\f\\r\"]"),
            ("[\"\\u0022\\u005c\"]", "[\"\\\"\\\\\"]"),
            ("[\"\\u007f\"]", "[\"\u{7F}\"]"),
            ("[\"\\u00A0\"]", "[\"\u{A0}\"]"),
        ] {
            let tape = try parsed(text)
            XCTAssertFalse(tape.isCanonical(tape.root), text)
            XCTAssertFalse(tape.isCanonical(1), text)
            XCTAssertTrue(tape.isEscaped(1), text)
            XCTAssertEqual(String(decoding: serialized(tape, tape.root), as: UTF8.self), expected, text)
        }
        // Whitespace anywhere inside a container.
        for text in [
            "[ 1]", "[1 ]", "[1, 2]", "[1 ,2]", "{ \"a\":1}", "{\"a\" :1}", "{\"a\": 1}", "{\"a\":1 }",
            "{\"a\":1, \"b\":2}", "[\n]", "{\t}", "[\r\n1]",
        ] {
            let tape = try parsed(text)
            XCTAssertFalse(tape.isCanonical(tape.root), text)
            for node in 1..<tape.nodeCount { XCTAssertTrue(tape.isCanonical(node), "\(text) node \(node)") }
        }
        // Whitespace around the root is not part of it.
        let padded = try parsed(" \n[1,{\"a\":2}]\t ")
        XCTAssertTrue(padded.isCanonical(padded.root))
        XCTAssertEqual(String(decoding: serialized(padded, padded.root), as: UTF8.self), "[1,{\"a\":2}]")
        // A pretty document is rewritten compact.
        let value = try JSON(parsing: #"{"a":[1,{"b":[]}],"c":"\u00e9"}"#)
        let pretty = try parsed(value.serializedString(pretty: true))
        XCTAssertFalse(pretty.isCanonical(pretty.root))
        XCTAssertEqual(serialized(pretty, pretty.root), value.serialized())
    }

    func testCanonicalSiblingsInsideANonCanonicalParentStayCanonical() throws {
        // node 0 [ ; 1 { ; 2 "a" ; 3 [1,2] ; 4 1 ; 5 2 ; 6 "x\/" ; 7 [ ; 8 1 ; 9 { ; 10 "k" ; 11 "\u0041"
        let text = #"[{"a":[1,2]},"x\/",[ 1],{"k":"\u0041"}]"#
        let tape = try parsed(text)
        XCTAssertEqual(tape.nodeCount, 12)
        let canonical = [1, 2, 3, 4, 5, 8, 10]
        let irregular = [0, 6, 7, 9, 11]
        for node in canonical { XCTAssertTrue(tape.isCanonical(node), "node \(node)") }
        for node in irregular { XCTAssertFalse(tape.isCanonical(node), "node \(node)") }
        XCTAssertEqual(
            String(decoding: serialized(tape, tape.root), as: UTF8.self), #"[{"a":[1,2]},"x/",[1],{"k":"A"}]"#)
        // A canonical child's bytes are its own text, so `serialize` can copy them.
        XCTAssertEqual(serialized(tape, 1), Array(tape.bytes[tape.textRange(1)]))
        // Appending keeps what the buffer already holds.
        var output = Array("prefix:".utf8)
        tape.serialize(1, into: &output)
        tape.serialize(7, into: &output)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), #"prefix:{"a":[1,2]}[1]"#)
    }

    func testCanonicalEscapesAreLeftAsTheyAre() throws {
        // Exactly the writer's escapes: named ones, and lowercase \u00xx for the other controls.
        var controls = ""
        for byte in 0..<0x20 where ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(byte) {
            controls += "\\u00" + String(byte, radix: 16).leftPadded(to: 2)
        }
        let text = "[\"\(controls)\",\"\\\"\\\\\\b\\f\\n\\r\\t\"]"
        let tape = try parsed(text)
        for node in allNodes(tape) { XCTAssertTrue(tape.isCanonical(node), "node \(node)") }
        XCTAssertEqual(String(decoding: serialized(tape, tape.root), as: UTF8.self), text)
    }

    // MARK: - 4. Accessors

    func testCountNextAndKinds() throws {
        // 0 [ ; 1 1 ; 2 [2,3] ; 3 2 ; 4 3 ; 5 { ; 6 "a" ; 7 [] ; 8 "s" ; 9 null ; 10 false ; 11 true ; 12 {}
        let tape = try parsed(#"[1,[2,3],{"a":[]},"s",null,false,true,{}]"#)
        XCTAssertEqual(tape.nodeCount, 13)
        XCTAssertEqual(tape.root, 0)
        XCTAssertEqual((0..<13).map { tape.count($0) }, [8, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual((0..<13).map { tape.next($0) }, [13, 2, 5, 4, 5, 8, 7, 8, 9, 10, 11, 12, 13])
        XCTAssertEqual(
            (0..<13).map { tape.kind($0) },
            [
                .array, .number, .array, .number, .number, .object, .string, .array, .string, .null, .false, .true,
                .object,
            ])
        var elements: [Int] = []
        tape.forEachElement(tape.root) { index, node in
            XCTAssertEqual(index, elements.count)
            elements.append(node)
        }
        XCTAssertEqual(elements, [1, 2, 5, 8, 9, 10, 11, 12])
        var members: [[Int]] = []
        tape.forEachMember(5) { members.append([$0, $1]) }
        XCTAssertEqual(members, [[6, 7]])
        tape.forEachMember(12) { _, _ in XCTFail("empty object has members") }
        tape.forEachElement(7) { _, _ in XCTFail("empty array has elements") }
        for literal in ["null", "true", "false"] {
            let single = try parsed(literal)
            XCTAssertEqual(
                single.kind(single.root), JSONTape.Kind(rawValue: ["null": 0, "false": 1, "true": 2][literal]!))
            XCTAssertEqual(single.nodeCount, 1)
            XCTAssertEqual(single.materialize(single.root).serializedString(), literal)
        }
    }

    private func member(_ tape: JSONTape, _ object: Int, _ name: String) -> Int? {
        Array(name.utf8).withUnsafeBufferPointer { tape.member(object, named: $0) }
    }

    private func equals(_ tape: JSONTape, _ node: Int, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { tape.stringEquals(node, $0) }
    }

    func testMemberLookupWithEscapedNames() throws {
        // 0 { ; 1 "a\"b" ; 2 1 ; 3 "\u00e9" ; 4 {..} ; 5 "" ; 6 2 ; 7 "x\/y" ; 8 3 ; 9 "plain" ; 10 4 ; 11 "" ; 12 5
        let tape = try parsed(#"{"a\"b":1,"\u00e9":{"":2},"x\/y":3,"plain":4,"":5}"#)
        XCTAssertEqual(member(tape, 0, "a\"b"), 2)
        XCTAssertEqual(member(tape, 0, "é"), 4)
        XCTAssertEqual(member(tape, 0, "x/y"), 8)
        XCTAssertEqual(member(tape, 0, "plain"), 10)
        XCTAssertEqual(member(tape, 0, ""), 12)
        XCTAssertEqual(member(tape, 4, ""), 6)
        XCTAssertNil(member(tape, 0, "a\\\"b"))
        XCTAssertNil(member(tape, 0, "x\\/y"))
        XCTAssertNil(member(tape, 0, "e\u{301}"))
        XCTAssertNil(member(tape, 0, "plai"))
        XCTAssertNil(member(tape, 0, "plainer"))
        XCTAssertNil(member(tape, 0, "missing"))
        XCTAssertNil(member(tape, 4, "plain"), "lookup must not look past the object")
        XCTAssertEqual(tape.string(1), "a\"b")
        XCTAssertEqual(tape.string(3), "é")
        XCTAssertEqual(tape.string(7), "x/y")
        XCTAssertEqual([1, 3, 5, 7, 9].map { tape.isEscaped($0) }, [true, true, false, true, false])
    }

    func testStringEqualsOnEscapedStrings() throws {
        let tape = try parsed(
            #"["\u0041\n","A\n","\ud83d\ude00x","\\","","abcdefghijklmnopq","abcdefghijklmnop\u0071"]"#)
        XCTAssertTrue(equals(tape, 1, "A\n"))
        XCTAssertFalse(equals(tape, 1, "A\\n"))
        XCTAssertFalse(equals(tape, 1, "\\u0041\n"))
        XCTAssertFalse(equals(tape, 1, "A"))
        XCTAssertTrue(equals(tape, 2, "A\n"))
        XCTAssertTrue(equals(tape, 3, "😀x"))
        XCTAssertFalse(equals(tape, 3, "😀"))
        XCTAssertTrue(equals(tape, 4, "\\"))
        XCTAssertTrue(equals(tape, 5, ""))
        XCTAssertFalse(equals(tape, 5, " "))
        XCTAssertTrue(equals(tape, 6, "abcdefghijklmnopq"))
        XCTAssertFalse(equals(tape, 6, "abcdefghijklmnopr"))
        XCTAssertFalse(equals(tape, 6, "bbcdefghijklmnopq"))
        XCTAssertTrue(equals(tape, 7, "abcdefghijklmnopq"))
        XCTAssertFalse(equals(tape, 7, "abcdefghijklmnop\\u0071"))
    }

    func testScalarCountOnMultiByteStrings() throws {
        let tape = try parsed(#"["é😀a","\u00e9\ud83d\ude00","","e\u0301","✓\n€","\u0000"]"#)
        XCTAssertEqual((1...6).map { tape.scalarCount($0) }, [3, 2, 0, 2, 3, 1])
    }

    func testNumberTextIsExact() throws {
        let numbers = [
            "1.5E+300", "-0", "12345678901234567890", "-12345678901234567890", "0.10", "1e-7", "2E5", "-0.0e-0",
            "123456789012345678901234567890.5",
        ]
        let tape = try parsed("[" + numbers.joined(separator: " , ") + "]")
        var texts: [String] = []
        tape.forEachElement(tape.root) { _, node in
            XCTAssertEqual(tape.kind(node), .number)
            texts.append(tape.number(node).text)
        }
        XCTAssertEqual(texts, numbers)
        XCTAssertEqual(
            String(decoding: serialized(tape, tape.root), as: UTF8.self), "[" + numbers.joined(separator: ",") + "]")
        let single = try parsed("-0")
        XCTAssertEqual(single.number(single.root).text, "-0")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
