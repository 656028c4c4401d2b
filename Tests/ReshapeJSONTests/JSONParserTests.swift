import XCTest

@testable import ReshapeJSON

final class JSONParserTests: XCTestCase {
    private func roundTrip(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let value = try JSON(parsing: text)
        XCTAssertEqual(value.serializedString(), text, file: file, line: line)
    }

    func testRoundTripKeepsNumbersAndOrderExactly() throws {
        try roundTrip(#"{"z":12345678901234567890,"a":0.1,"m":1.5E+300,"n":-0,"e":1e-7}"#)
        try roundTrip(#"[true,false,null,"",[],{},[[]],{"a":{}}]"#)
        try roundTrip(#"{"b":1,"a":2,"c":{"y":1,"x":2}}"#)
    }

    func testRoundTripStringsAndEscapes() throws {
        try roundTrip(#"["héllo wörld ✓ 😀","a\"b\\c","line\nbreak\ttab","\u0000\u001f","/ not escaped"]"#)
        let decoded = try JSON(parsing: #""\u00e9\ud83d\ude00\/\b\f\r""#)
        XCTAssertEqual(decoded, .string("é😀/\u{08}\u{0C}\r"))
        XCTAssertEqual(decoded.serializedString(), "\"é😀/\\b\\f\\r\"")
    }

    func testLongStringsAcrossTheEightByteFastPath() throws {
        let ascii = String(repeating: "abcdefgh", count: 50)
        XCTAssertEqual(try JSON(parsing: "\"\(ascii)\""), .string(ascii))
        let mixed = ascii + "é" + ascii + "\\n" + ascii
        XCTAssertEqual(try JSON(parsing: "\"\(mixed)\""), .string(ascii + "é" + ascii + "\n" + ascii))
    }

    func testParsesAnyByteCollection() throws {
        let bytes = Array("xx[1,{\"a\":true}]yy".utf8)
        XCTAssertEqual(try JSON.parse(bytes[2..<16]).serializedString(), #"[1,{"a":true}]"#)
        XCTAssertEqual(try JSON.parse("[null]".utf8), .array([.null]))
        XCTAssertEqual(try JSON.parse(AnyCollection(Array("\"é\"".utf8))), .string("é"))
        XCTAssertThrowsError(try JSON.parse(bytes[0..<16])) { error in
            XCTAssertEqual("\(error)", "1:1: unexpected character 'x', expected a value")
        }
    }

    func testWhitespaceAroundValues() throws {
        XCTAssertEqual(
            try JSON(parsing: " \t\r\n[ 1 , 2 ]\n "), .array([.number(JSONNumber(1)), .number(JSONNumber(2))]))
    }

    private func assertError(
        _ text: String, _ line: Int, _ column: Int, _ fragment: String,
        file: StaticString = #filePath, sourceLine: UInt = #line
    ) {
        do {
            _ = try JSON(parsing: text)
            XCTFail("accepted \(text)", file: file, line: sourceLine)
        } catch {
            XCTAssertEqual(error.line, line, "line for \(text): \(error)", file: file, line: sourceLine)
            XCTAssertEqual(error.column, column, "column for \(text): \(error)", file: file, line: sourceLine)
            XCTAssertTrue(
                error.message.contains(fragment), "\(error.message) lacks '\(fragment)'", file: file, line: sourceLine)
        }
    }

    func testRejectionsCarryExactPositions() {
        assertError("", 1, 1, "end of input")
        assertError("[1,2,]", 1, 6, "trailing comma")
        assertError("{\"a\":1,}", 1, 8, "trailing comma")
        assertError("{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, "duplicate member name \"a\"")
        assertError("[01]", 1, 2, "leading zeros")
        assertError("[1.]", 1, 4, "decimal point")
        assertError("[1e]", 1, 4, "exponent")
        assertError("[-]", 1, 3, "after '-'")
        assertError("[NaN]", 1, 2, "expected a value")
        assertError("[Infinity]", 1, 2, "expected a value")
        assertError("// c\n1", 1, 1, "expected a value")
        assertError("[1] x", 1, 5, "after the JSON value")
        assertError("[tru]", 1, 2, "expected 'true'")
        assertError("\"abc", 1, 1, "unterminated string")
        assertError("\"a\tb\"", 1, 3, "control character 0x09")
        assertError("\"é\tb\"", 1, 3, "control character 0x09")
        assertError("\"é\\n\u{1}\"", 1, 5, "control character 0x01")
        assertError("[\"abcdefghijé", 1, 2, "unterminated string")
        assertError(#""\ud800""#, 1, 2, "lone high surrogate")
        assertError(#""\udc00""#, 1, 2, "lone low surrogate")
        assertError(#""\ud800\u0041""#, 1, 2, "lone high surrogate")
        assertError(#""\x""#, 1, 2, "invalid escape")
        assertError(#""\u12g4""#, 1, 2, "hex digits")
        assertError("{\"a\" 1}", 1, 6, "expected ':'")
        assertError("{a:1}", 1, 2, "member name in double quotes")
        assertError("[1 2]", 1, 4, "expected ',' or ']'")
        assertError("{\"é\": 1, \"b\" 2}", 1, 14, "expected ':'")
    }

    func testInvalidUTF8IsRejected() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xFF, 0x22],
        ] {
            XCTAssertThrowsError(try JSON.parse(bytes), "\(bytes)") { error in
                XCTAssertTrue((error as! JSONParseError).message.contains("UTF-8"), "\(error)")
            }
        }
        XCTAssertThrowsError(try JSON.parse([0xEF, 0xBB, 0xBF, 0x31]))
    }

    func testDepthLimit() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        XCTAssertThrowsError(try JSON(parsing: deep)) { error in
            XCTAssertTrue((error as! JSONParseError).message.contains("nesting deeper than 512"))
        }
        XCTAssertNoThrow(try JSON(parsing: deep, options: JSONParseOptions(maxDepth: 600)))
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        XCTAssertThrowsError(try JSON(parsing: hostile))
    }

    func testDuplicatesInLargeObjectsUseTheHashedCheck() {
        let members = (0..<50).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertNoThrow(try JSON(parsing: "{\(members)}"))
        XCTAssertThrowsError(try JSON(parsing: "{\(members),\"k7\":1}")) { error in
            XCTAssertTrue((error as! JSONParseError).message.contains("duplicate member name \"k7\""))
        }
    }

    func testDuplicatesAreFoundAroundTheTableSwitchAndAfterGrowth() {
        for size in [15, 16, 17, 40, 5000] {
            let members = (0..<size).map { "\"key-\($0)\":\($0)" }.joined(separator: ",")
            XCTAssertNoThrow(try JSON(parsing: "{\(members)}"), "\(size)")
            for duplicate in [0, size / 2, size - 1] {
                XCTAssertThrowsError(try JSON(parsing: "{\(members),\"key-\(duplicate)\":true}"), "\(size)") { error in
                    XCTAssertEqual((error as! JSONParseError).message, "duplicate member name \"key-\(duplicate)\"")
                }
            }
        }
    }

    func testRepeatedMemberNamesOfEveryLengthRoundTrip() throws {
        // Names of 0...20 bytes, repeated across records, exercise the word-at-a-time name comparison.
        let names = (0...20).map { String(repeating: "k", count: $0) } + ["é", "a\\\"b", "abcdefgh", "abcdefghi"]
        let record = "{" + names.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
        let text = "[" + Array(repeating: record, count: 3).joined(separator: ",") + "]"
        // Trailing whitespace makes a large document (a name table, words compared past a page).
        let padding = String(repeating: " ", count: 4096)
        let value = try JSON(parsing: text + padding)
        XCTAssertEqual(value.serializedString(), text)
        guard case .array(let records) = value, case .object(let last) = records[2] else { return XCTFail() }
        XCTAssertEqual(last.keys, names.map { $0.replacingOccurrences(of: "\\\"", with: "\"") })
        assertError(#"[{"abc":1},{"abc":1,"abc":2}]"# + padding, 1, 21, "duplicate member name \"abc\"")
        assertError(#"[{"":1},{"":1,"":2}]"# + padding, 1, 15, "duplicate member name \"\"")
    }

    func testRepeatedStringValuesOfEveryLengthRoundTrip() throws {
        // Values of 0...20 bytes repeated across records exercise string scanning, including
        // two values that share their first 16 bytes and ones that differ only in length.
        let values =
            (0...20).map { String(repeating: "v", count: $0) } + ["abcdefghijklmnop", "abcdefghijklmnoq", "é", "a\\nb"]
        let record = "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let text = "[" + Array(repeating: record, count: 3).joined(separator: ",") + "]"
        // Trailing whitespace makes a large document (a name table, words compared past a page).
        let padding = String(repeating: " ", count: 4096)
        let value = try JSON(parsing: text + padding)
        XCTAssertEqual(value.serializedString(), text)
        guard case .array(let records) = value, case .array(let last) = records[2] else { return XCTFail() }
        XCTAssertEqual(last[16], .string("vvvvvvvvvvvvvvvv"))
        XCTAssertEqual(last[22], .string("abcdefghijklmnoq"))
        XCTAssertEqual(last[24], .string("a\nb"))
    }

    func testDuplicateSpelledWithAnEscapeIsStillADuplicate() {
        assertError(#"{"ab":1,"\u0061b":2}"#, 1, 9, "duplicate member name \"ab\"")
    }

    func testErrorDescriptionIsLineColonColumn() {
        XCTAssertThrowsError(try JSON(parsing: "{\n  \"a\": tru\n}")) { error in
            XCTAssertEqual("\(error)", "2:8: invalid literal, expected 'true'")
        }
    }
}
