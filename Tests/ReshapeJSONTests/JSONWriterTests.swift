import XCTest

@testable import ReshapeJSON

final class JSONWriterTests: XCTestCase {
    func testPrettyOutputIsStable() throws {
        let value = try JSON(parsing: #"{"b":[1,{"c":null}],"a":{},"e":[],"s":"x"}"#)
        XCTAssertEqual(
            value.serializedString(pretty: true),
            """
            {
              "b": [
                1,
                {
                  "c": null
                }
              ],
              "a": {},
              "e": [],
              "s": "x"
            }
            """)
    }

    func testControlCharactersAreEscaped() {
        let value = JSON.string("\u{01}\u{1F}\u{7F}\"\\")
        XCTAssertEqual(value.serializedString(), "\"\\u0001\\u001f\u{7F}\\\"\\\\\"")
    }

    func testSerializeIntoAppendsToTheCallersBuffer() throws {
        var buffer = Array("prefix:".utf8)
        try JSON(parsing: #"{"a":[1,"x\ty"]}"#).serialize(into: &buffer)
        XCTAssertEqual(String(decoding: buffer, as: UTF8.self), #"prefix:{"a":[1,"x\ty"]}"#)
    }

    func testLongStringsWithLateEscapesAndUnicode() {
        let plain = String(repeating: "abcdefgh", count: 40)
        let value = JSON.string(plain + "é\n\u{1}" + plain + "/")
        XCTAssertEqual(value.serializedString(), "\"" + plain + "é\\n\\u0001" + plain + "/\"")
    }

    func testOutputReparsesToAnEqualValue() throws {
        let text = #"{"k":[1.50,"\u2028",{"x":-0.0e-0}],"n":null}"#
        let value = try JSON(parsing: text)
        XCTAssertEqual(try JSON.parse(value.serialized()), value)
        XCTAssertEqual(try JSON.parse(value.serialized(pretty: true)), value)
    }
}
