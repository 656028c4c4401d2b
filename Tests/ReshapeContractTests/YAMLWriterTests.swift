import ReshapeJSON
import XCTest

@testable import ReshapeContract
@testable import ReshapeRules

/// The one YAML writer (infer's drafts, `openapi --yaml`) must write what the rule loader's
/// YAML reader reads back as the same JSON, whatever the strings hold.
final class YAMLWriterTests: XCTestCase {
    private func roundTrip(_ value: JSON, file: StaticString = #filePath, line: UInt = #line) throws {
        let text = YAMLWriter.write(value)
        let read = try SourceDocument.parseYAML(text, file: "written.yaml").root
        XCTAssertEqual(read, value, "written as:\n\(text)", file: file, line: line)
    }

    func testStringsYAMLCouldMisreadStayStrings() throws {
        let strings = [
            "3.1.0", "1e3", "0x1F", ".inf", "-", "- a", "~", "null", "Null", "NO", "yes", "On", "y", "true",
            "12:30", "a: b", "#hash", "a #b", "@at", "&anchor", "*alias", "!tag", "|", ">", "%", "`",
            "{a}", "[a]", "/users/{id}", "$ref", "", " padded ", "tab\there", "new\nline", "quote\"", "back\\slash",
        ]
        try roundTrip(.object(JSONObject(strings.map { JSONMember(key: $0, value: .string($0)) })))
        try roundTrip(.array(strings.map { .string($0) }))
    }

    func testControlsAndNonCharactersAreEscaped() throws {
        let hostile =
            "nul\u{0}bell\u{7}del\u{7F}c1\u{85}\u{9F}bom\u{FEFF}nonchar\u{FFFE}\u{FFFF}ls a \u{2028} b\u{2029}--- c"
        let text = YAMLWriter.write(.object(JSONObject([JSONMember(key: hostile, value: .string(hostile))])))
        XCTAssertFalse(
            text.unicodeScalars.contains {
                $0.value == 0x7F || (0x80...0x9F).contains($0.value) || [0xFEFF, 0x2028, 0x2029].contains($0.value)
            },
            "a character YAML forbids raw was written raw: \(text.debugDescription)")
        try roundTrip(.object(JSONObject([JSONMember(key: hostile, value: .string(hostile))])))
    }

    func testNonASCIIAndNestingRoundTrip() throws {
        let value = try JSON(
            parsing: #"""
                {"city": "Łódź", "emoji": "🙂", "empty": {}, "none": [], "n": -1.5e-3, "list": [[1, [2]], {"a": [{"b": null}]}],
                 "properties": {"name": {"type": "string", "pattern": "^[a-z]+$"}}}
                """#)
        try roundTrip(value)
    }
}
